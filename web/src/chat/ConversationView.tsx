// One conversation: its latest page of questions (each with its attempts),
// scroll-back through older keyset pages (last/before) that keeps the view
// where it was, and the composer. The list holds message ids; each turn
// reads its message from Apollo's normalized cache (useFragment), so stream
// completions, retries and feedback update it in place.
import { useApolloClient, useFragment, useMutation, useQuery } from '@apollo/client/react';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { AskMutation, ConversationQuery, MessageFields } from '../operations';
import { useT } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';
import { Composer } from './Composer';
import { Turn } from './Turn';
import { nodes } from '../relay';

// Ten questions a page: each brings its attempts with their sources and
// feedback, which the query complexity limit counts as lists of ten.
const pageSize = 10;

export function ConversationView({ id }: { id: string }) {
  const t = useT();
  const client = useApolloClient();
  const { data, error } = useQuery(ConversationQuery, { variables: { id, last: pageSize }, fetchPolicy: 'network-only' });
  const [ids, setIds] = useState<string[]>([]);
  const [older, setOlder] = useState<{ cursor: string | null; more: boolean }>({ cursor: null, more: false });
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [askError, setAskError] = useState<UiError | null>(null);
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
      setAskError(toUiError(err));
      return false;
    }
  };

  if (error && !conv) return <ErrorNote error={toUiError(error)} />;
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
          <TurnById key={mid} id={mid} readOnly={readOnly} />
        ))}
      </div>
      {askError && <ErrorNote error={askError} />}
      {!readOnly && <Composer conversationId={id} disabled={false} onAsk={onAsk} />}
    </section>
  );
}

function TurnById({ id, readOnly }: { id: string; readOnly: boolean }) {
  const { data, complete } = useFragment({ fragment: MessageFields, fragmentName: 'MessageFields', from: { __typename: 'Message', id } });
  if (!complete) return null;
  return <Turn message={data} readOnly={readOnly} />;
}
