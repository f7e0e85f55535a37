// One conversation: its latest page of questions (each with its attempts),
// scroll-back through older keyset pages (last/before) that keeps the view
// where it was, and the composer. The list holds message ids; each turn
// reads its message from Apollo's normalized cache (useFragment), so stream
// completions, retries and feedback update it in place.
//
// Error states (docs/API.md, "Errors"): while an attempt of this
// conversation runs, Send is disabled with the reason; a CONVERSATION_BUSY
// the console did not foresee (an answer started in another tab) loads the
// running answer and links to it; RATE_LIMITED counts retryAfterSeconds
// down before Send comes back, the draft kept; UNAVAILABLE offers a Retry
// that resends the same question (same clientMessageId); an expired token
// is handled by the Apollo link (renew or sign in again, draft kept).
import { useApolloClient, useFragment, useMutation, useQuery } from '@apollo/client/react';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { retryDeadline, useCountdown } from '../countdown';
import { AskMutation, ConversationQuery, MessageFields } from '../operations';
import { useT } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';
import { Composer } from './Composer';
import { Turn, attemptAnchor } from './Turn';
import { nodes } from '../relay';

// Ten questions a page: each brings its attempts with their sources and
// feedback, which the query complexity limit counts as lists of ten.
const pageSize = 10;

export function ConversationView({ id }: { id: string }) {
  const t = useT();
  const client = useApolloClient();
  const { data, error, refetch } = useQuery(ConversationQuery, { variables: { id, last: pageSize }, fetchPolicy: 'network-only' });
  const [ids, setIds] = useState<string[]>([]);
  const [older, setOlder] = useState<{ cursor: string | null; more: boolean }>({ cursor: null, more: false });
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [askError, setAskError] = useState<UiError | null>(null);
  // The running (PENDING) attempt of each message that has one.
  const [running, setRunning] = useState<Record<string, string>>({});
  const [rateDeadline, setRateDeadline] = useState<number | null>(null);
  const rateLeft = useCountdown(rateDeadline);
  const sendRef = useRef<(() => void) | null>(null);
  const seenRunning = useRef(new Set<string>());
  const scroller = useRef<HTMLDivElement>(null);
  const anchor = useRef<{ height: number; top: number } | null>(null);
  const stickToBottom = useRef(true);
  const [ask] = useMutation(AskMutation);

  const conv = data?.conversation;
  useEffect(() => {
    if (!conv) return;
    setIds(nodes(conv.messages.edges).map((n) => n.id));
    setOlder({ cursor: conv.messages.pageInfo.startCursor ?? null, more: conv.messages.pageInfo.hasPreviousPage });
    stickToBottom.current = true;
    // Only a new conversation resets the list.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conv?.id, !!conv]);

  // Keep the reader's place when older pages are prepended, and follow the
  // bottom while the reader is there.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (anchor.current) {
      el.scrollTop = el.scrollHeight - anchor.current.height + anchor.current.top;
      anchor.current = null;
    } else if (stickToBottom.current) {
      el.scrollTop = el.scrollHeight;
    }
  }, [ids]);

  const loadOlder = useCallback(async () => {
    if (!older.more || loadingOlder || !older.cursor) return;
    setLoadingOlder(true);
    try {
      const res = await client.query({ query: ConversationQuery, variables: { id, last: pageSize, before: older.cursor }, fetchPolicy: 'network-only' });
      const page = res.data?.conversation.messages;
      if (page) {
        const el = scroller.current;
        if (el) anchor.current = { height: el.scrollHeight, top: el.scrollTop };
        setIds((cur) => [...nodes(page.edges).map((n) => n.id), ...cur]);
        setOlder({ cursor: page.pageInfo.startCursor ?? null, more: page.pageInfo.hasPreviousPage });
      }
    } finally {
      setLoadingOlder(false);
    }
  }, [client, id, older, loadingOlder]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (el.scrollTop < 80) void loadOlder();
  };

  const onRunning = useCallback((messageId: string, attemptId: string | null) => {
    if (attemptId) seenRunning.current.add(attemptId);
    setRunning((cur) => {
      if ((cur[messageId] ?? null) === attemptId) return cur;
      const next = { ...cur };
      if (attemptId) next[messageId] = attemptId;
      else delete next[messageId];
      return next;
    });
  }, []);
  const runningAttempt = Object.values(running)[0] ?? null;

  // The countdown ended: Send is back, the draft still in the box.
  useEffect(() => {
    if (rateDeadline !== null && rateLeft === 0) {
      setRateDeadline(null);
      setAskError((e) => (e?.kind === 'rateLimited' ? null : e));
    }
  }, [rateDeadline, rateLeft]);

  // A CONVERSATION_BUSY whose answer has ended is no longer news.
  useEffect(() => {
    if (askError?.kind === 'busy' && askError.attemptId && seenRunning.current.has(askError.attemptId) && !Object.values(running).includes(askError.attemptId)) {
      setAskError(null);
    }
  }, [askError, running]);

  // Brings the latest page's questions the view does not show yet (an
  // answer started in another tab) into it.
  const loadLatest = useCallback(async () => {
    const res = await client.query({ query: ConversationQuery, variables: { id, last: pageSize }, fetchPolicy: 'network-only' });
    const page = res.data?.conversation.messages;
    if (!page) return;
    stickToBottom.current = true;
    setIds((cur) => [...cur, ...nodes(page.edges).map((n) => n.id).filter((m) => !cur.includes(m))]);
  }, [client, id]);

  const onAsk = async (question: string, clientMessageId: string) => {
    setAskError(null);
    try {
      const res = await ask({ variables: { input: { conversationId: id, clientMessageId, question } } });
      const m = res.data?.ask.userMessage;
      if (m) {
        stickToBottom.current = true;
        setIds((cur) => (cur.includes(m.id) ? cur : [...cur, m.id]));
      }
      return true;
    } catch (err) {
      const e = toUiError(err);
      setAskError(e);
      if (e.kind === 'rateLimited') setRateDeadline(retryDeadline(e.retryAfterSeconds, Date.now()));
      if (e.kind === 'busy') void loadLatest().catch(() => {});
      return false;
    }
  };

  if (error && !conv) return <ErrorNote error={toUiError(error)} onRetry={() => void refetch()} />;
  if (!conv) return <div className="muted">…</div>;
  const readOnly = conv.status !== 'ACTIVE';
  return (
    <section className="conversation" aria-label={conv.title}>
      <header className="conv-header">
        <h2>{conv.title || '…'}</h2>
        {conv.status !== 'ACTIVE' && <span className="badge">{conv.status === 'ARCHIVED' ? t.archived : t.expired}</span>}
      </header>
      <div className="messages" ref={scroller} onScroll={onScroll} data-testid="messages">
        {older.more && (
          <button type="button" className="load-older" onClick={() => void loadOlder()} disabled={loadingOlder}>
            {t.loadOlder}
          </button>
        )}
        {ids.map((mid) => (
          <TurnById key={mid} id={mid} readOnly={readOnly} onRunning={onRunning} />
        ))}
      </div>
      {askError && askError.kind !== 'signIn' && (
        <ErrorNote
          error={askError}
          secondsLeft={askError.kind === 'rateLimited' ? rateLeft : undefined}
          busyHref={askError.attemptId ? `#${attemptAnchor(askError.attemptId)}` : undefined}
          onRetry={() => sendRef.current?.()}
        />
      )}
      {!readOnly && (
        <Composer
          conversationId={id}
          disabled={runningAttempt !== null || rateLeft > 0}
          reason={
            runningAttempt !== null ? (
              <>
                {t.busySend}{' '}
                <a href={`#${attemptAnchor(runningAttempt)}`} data-testid="running-answer">
                  {t.showRunningAnswer}
                </a>
              </>
            ) : rateLeft > 0 ? (
              t.rateLimitedSend(rateLeft)
            ) : undefined
          }
          onAsk={onAsk}
          sendRef={sendRef}
        />
      )}
    </section>
  );
}

function TurnById({ id, readOnly, onRunning }: { id: string; readOnly: boolean; onRunning: (messageId: string, attemptId: string | null) => void }) {
  const { data, complete } = useFragment({ fragment: MessageFields, fragmentName: 'MessageFields', from: { __typename: 'Message', id } });
  const pending = complete ? (data.attempts ?? []).find((a) => a.status === 'PENDING')?.id ?? null : null;
  useEffect(() => {
    onRunning(id, pending);
  }, [id, pending, onRunning]);
  useEffect(() => () => onRunning(id, null), [id, onRunning]);
  if (!complete) return null;
  return <Turn message={data} readOnly={readOnly} />;
}
