// One conversation: its current branch (Conversation.currentPath, the
// latest 50 messages, then older pages with before: startCursor as the
// reader scrolls up, the view kept where it was) and the composer. The view
// holds the path's message ids and roles (src/chat/path.ts); each turn
// reads its messages from Apollo's normalized cache (useFragment), so
// stream completions, retries and feedback update it in place.
//
// Branches (docs/API.md, "Message trees"): a question can be edited
// (editMessage), any answer regenerated (retryAttempt), and "‹ n / m ›"
// switches between a message's siblings (selectBranch). Each of these
// moves the server's current leaf; the view then reads the latest page of
// the path again. So does a BRANCH_SELECTED event of conversationEvents (a
// switch in another tab or device), and the end of an answer this view
// was following (its answer message, and its siblings, are then on the
// path). A re-read is idempotent (mergeLatest) and the newest one wins,
// so an event arriving before the mutation's own response changes nothing.
//
// Error states (docs/API.md, "Errors"): while an attempt of this
// conversation runs, Send, Edit and Regenerate are disabled with the
// reason; a CONVERSATION_BUSY the console did not foresee (an answer
// started in another tab) loads the running answer and links to it;
// RATE_LIMITED counts retryAfterSeconds down before they come back, the
// draft kept; UNAVAILABLE offers a Retry that resends the same request
// (the same clientMessageId or clientRequestId); an expired token is
// handled by the Apollo link (renew or sign in again, draft kept).
import { useApolloClient, useFragment, useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { retryDeadline, useCountdown } from '../countdown';
import { AskMutation, AttemptStalenessQuery, CancelMutation, ConversationEventsSubscription, ConversationQuery, EditMessageMutation, PathMessageFields, ReaskMutation, RetryMutation, SelectBranchMutation } from '../operations';
import type { ConversationQuery as ConversationResult } from '../gql/graphql';
import { useT } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { newId } from '../ids';
import { ErrorNote } from './ErrorNote';
import { ConversationHeader } from './ConversationHeader';
import { Composer } from './Composer';
import { Turn, attemptAnchor, type TurnActions } from './Turn';
import { nodes } from '../relay';
import { appendQuestion, mergeLatest, prependOlder, turnsOf, type LoadedPath, type PathEntry, type PathTurn } from './path';
import { ModelPicker, useModelChoice } from './ModelPicker';

// Fifty messages a page (25 rounds): each brings its attempts without
// their lists, and an answer its attempt with sources and feedback, which
// the query complexity limit counts as lists of ten.
const pageSize = 50;

type PathPage = NonNullable<ConversationResult['conversation']>['currentPath'];

function entriesOf(page: PathPage): PathEntry[] {
  return nodes(page.edges).map((n) => ({ id: n.id, role: n.role }));
}

export function ConversationView({ id }: { id: string }) {
  const t = useT();
  const client = useApolloClient();
  const { data, error, refetch } = useQuery(ConversationQuery, { variables: { id, last: pageSize }, fetchPolicy: 'network-only' });
  const [path, setPath] = useState<LoadedPath>({ entries: [], cursor: null, more: false });
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [askError, setAskError] = useState<UiError | null>(null);
  // The running (PENDING) attempt of each question that has one.
  const [running, setRunning] = useState<Record<string, string>>({});
  const [rateDeadline, setRateDeadline] = useState<number | null>(null);
  const rateLeft = useCountdown(rateDeadline);
  const sendRef = useRef<(() => void) | null>(null);
  // What the error banner's Retry resends: the composer's question, or the
  // edit or regeneration that failed (with its idempotency key).
  const retryRef = useRef<(() => void) | null>(null);
  const seenRunning = useRef(new Set<string>());
  const scroller = useRef<HTMLDivElement>(null);
  const anchor = useRef<{ height: number; top: number } | null>(null);
  const stickToBottom = useRef(true);
  const reads = useRef(0);
  const inFlight = useRef(0);
  const [ask] = useMutation(AskMutation);
  const [modelId, setModelId] = useModelChoice(id);
  const [edit] = useMutation(EditMessageMutation);
  const [select] = useMutation(SelectBranchMutation);
  const [retry] = useMutation(RetryMutation);
  const [reaskAttempt] = useMutation(ReaskMutation);
  const [cancel] = useMutation(CancelMutation);

  const conv = data?.conversation;
  useEffect(() => {
    if (!conv) return;
    const page = conv.currentPath;
    setPath({ entries: entriesOf(page), cursor: page.pageInfo.startCursor ?? null, more: page.pageInfo.hasPreviousPage });
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
  }, [path.entries]);

  const loadOlder = useCallback(async () => {
    if (!path.more || loadingOlder || !path.cursor) return;
    setLoadingOlder(true);
    try {
      const res = await client.query({ query: ConversationQuery, variables: { id, last: pageSize, before: path.cursor }, fetchPolicy: 'network-only' });
      const page = res.data?.conversation.currentPath;
      if (page) {
        const el = scroller.current;
        if (el) anchor.current = { height: el.scrollHeight, top: el.scrollTop };
        setPath((cur) => prependOlder(cur, entriesOf(page), page.pageInfo.startCursor ?? null, page.pageInfo.hasPreviousPage));
      }
    } finally {
      setLoadingOlder(false);
    }
  }, [client, id, path, loadingOlder]);

  // Reads the latest page of the current path again (after a switch, an
  // edit, a regeneration, an answer's end, or a CONVERSATION_BUSY), and
  // then shows the end of the path unless stick is false (a re-read the
  // reader did not ask for keeps where they scrolled). Only the newest
  // read is applied; an older one finishing later is dropped.
  const reread = useCallback(async (stick = true) => {
    const n = ++reads.current;
    inFlight.current++;
    let res;
    try {
      // Not deduplicated: a read joining one already in flight would get
      // that older answer.
      res = await client.query({ query: ConversationQuery, variables: { id, last: pageSize }, fetchPolicy: 'network-only', context: { queryDeduplication: false } });
    } finally {
      inFlight.current--;
    }
    const page = res.data?.conversation.currentPath;
    if (!page || n !== reads.current) return;
    if (stick) stickToBottom.current = true;
    setPath((cur) => mergeLatest(cur, entriesOf(page), page.pageInfo.startCursor ?? null, page.pageInfo.hasPreviousPage));
  }, [client, id]);
  const rereadQuietly = useCallback((stick = true) => void reread(stick).catch(() => {}), [reread]);

  // Another tab or device switched, edited or regenerated.
  const lastId = path.entries[path.entries.length - 1]?.id;
  const lastRef = useRef(lastId);
  lastRef.current = lastId;
  useSubscription(ConversationEventsSubscription, {
    variables: { conversationId: id },
    onData: ({ data: ev }) => {
      const e = ev.data?.conversationEvents;
      // The stream is live (docs/API.md, "Knowing a stream is live"):
      // changes made while it was not (before it started, while the
      // socket was down) are not replayed, so the path is read again.
      // SUBSCRIBED comes again after every reconnect.
      if (e?.kind === 'SUBSCRIBED') rereadQuietly(false);
      if (e?.kind === 'BRANCH_SELECTED' && e.messageId !== lastRef.current) rereadQuietly();
      // A cited document changed (docs/API.md, "Document-change events"):
      // the stale badges on screen read their staleness again.
      if (e?.kind === 'SOURCES_CHANGED') void client.refetchQueries({ include: [AttemptStalenessQuery] }).catch(() => {});
    },
  });

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

  // Shows what a request failed with, as the ask does; again resends it.
  const failed = (err: unknown, again: () => void) => {
    const e = toUiError(err);
    setAskError(e);
    retryRef.current = again;
    if (e.kind === 'rateLimited') setRateDeadline(retryDeadline(e.retryAfterSeconds, Date.now()));
    if (e.kind === 'busy') rereadQuietly();
  };

  const onAsk = async (question: string, clientMessageId: string, attachmentIds: string[] = []) => {
    setAskError(null);
    try {
      const res = await ask({
        variables: {
          input: {
            conversationId: id,
            clientMessageId,
            question,
            modelProfileId: modelId || null,
            attachmentIds: attachmentIds.length > 0 ? attachmentIds : null,
          },
        },
      });
      const m = res.data?.ask.userMessage;
      if (m) {
        stickToBottom.current = true;
        setPath((cur) => appendQuestion(cur, m.id));
        // A read sent before the question existed would drop it, and a
        // question that does not follow the view's last message means the
        // view missed a switch: read again (the newer read wins).
        if (inFlight.current > 0 || (m.parentId ?? null) !== (lastRef.current ?? null)) rereadQuietly();
      }
      return true;
    } catch (err) {
      failed(err, () => sendRef.current?.());
      return false;
    }
  };

  const actions: TurnActions & {
    regenerate: (questionId: string, attemptId: string, clientRequestId?: string) => Promise<void>;
    reask: (attemptId: string, clientRequestId?: string) => Promise<void>;
  } = {
    edit: async (messageId, question, clientMessageId) => {
      setAskError(null);
      try {
        await edit({ variables: { messageId, question, clientMessageId, modelProfileId: modelId || null } });
        await reread();
        return true;
      } catch (err) {
        failed(err, () => void actions.edit(messageId, question, clientMessageId));
        return false;
      }
    },
    select: async (messageId) => {
      setAskError(null);
      try {
        await select({ variables: { conversationId: id, messageId } });
        await reread();
      } catch (err) {
        failed(err, () => void actions.select(messageId));
      }
    },
    regenerate: async (questionId: string, attemptId: string, clientRequestId: string = newId()) => {
      setAskError(null);
      try {
        await retry({
          variables: { input: { attemptId, clientRequestId, modelProfileId: modelId || null } },
          update(cache, { data: res }) {
            const a = res?.retryAttempt.attempt;
            if (!a) return;
            cache.modify({
              id: cache.identify({ __typename: 'Message', id: questionId }),
              fields: {
                attempts: (existing, { toReference, readField }) => {
                  const list = (existing as readonly { __ref: string }[] | undefined) ?? [];
                  if (list.some((r) => readField('id', r) === a.id)) return list;
                  return [...list, toReference({ __typename: 'Attempt', id: a.id })];
                },
              },
            });
          },
        });
        await reread();
      } catch (err) {
        failed(err, () => void actions.regenerate(questionId, attemptId, clientRequestId));
      }
    },
    reask: async (attemptId: string, clientRequestId: string = newId()) => {
      setAskError(null);
      try {
        await reaskAttempt({ variables: { attemptId, clientRequestId, modelProfileId: modelId || null } });
        await reread();
      } catch (err) {
        failed(err, () => void actions.reask(attemptId, clientRequestId));
      }
    },
    cancel: (attemptId) => {
      cancel({ variables: { id: attemptId } }).catch((err) => setAskError(toUiError(err)));
    },
  };

  if (error && !conv) return <ErrorNote error={toUiError(error)} onRetry={() => void refetch()} />;
  if (!conv) return <div className="muted">…</div>;
  const readOnly = conv.status !== 'ACTIVE';
  const locked = runningAttempt !== null || rateLeft > 0;
  return (
    <section className="conversation" aria-label={conv.title}>
      <ConversationHeader conv={conv} />
      <div className="messages" ref={scroller} onScroll={onScroll} data-testid="messages" data-leaf={lastId ?? ''}>
        {path.more && (
          <button type="button" className="load-older" onClick={() => void loadOlder()} disabled={loadingOlder}>
            {t.loadOlder}
          </button>
        )}
        {turnsOf(path.entries).map((turn) => (
          <TurnById key={turn.key} turn={turn} readOnly={readOnly} locked={locked} actions={actions} onRunning={onRunning} onSettled={rereadQuietly} />
        ))}
      </div>
      {askError && askError.kind !== 'signIn' && (
        <ErrorNote
          error={askError}
          secondsLeft={askError.kind === 'rateLimited' ? rateLeft : undefined}
          busyHref={askError.attemptId ? `#${attemptAnchor(askError.attemptId)}` : undefined}
          onRetry={() => retryRef.current?.()}
        />
      )}
      {!readOnly && <ModelPicker value={modelId} onChange={setModelId} />}
      {!readOnly && (
        <Composer
          conversationId={id}
          disabled={locked}
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

interface TurnByIdProps {
  turn: PathTurn;
  readOnly: boolean;
  locked: boolean;
  actions: TurnActions;
  onRunning: (messageId: string, attemptId: string | null) => void;
  /** An answer this turn was following ended: the path has changed. */
  onSettled: () => void;
}

function TurnById({ turn, readOnly, locked, actions, onRunning, onSettled }: TurnByIdProps) {
  const q = useFragment({ fragment: PathMessageFields, fragmentName: 'PathMessageFields', from: { __typename: 'Message', id: turn.question ?? '' } });
  const a = useFragment({ fragment: PathMessageFields, fragmentName: 'PathMessageFields', from: { __typename: 'Message', id: turn.answer ?? '' } });
  const question = turn.question && q.complete ? q.data : null;
  const answer = turn.answer && a.complete ? a.data : null;
  const key = turn.key;
  const pending = (question?.attempts ?? []).find((x) => x.status === 'PENDING')?.id ?? null;
  const was = useRef<string | null>(null);
  useEffect(() => {
    onRunning(key, pending);
    if (was.current && !pending) onSettled();
    was.current = pending;
  }, [key, pending, onRunning, onSettled]);
  useEffect(() => () => onRunning(key, null), [key, onRunning]);
  if (!question && !answer) return null;
  return <Turn question={question} answer={answer} readOnly={readOnly} locked={locked} actions={actions} />;
}
