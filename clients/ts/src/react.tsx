// React hooks over the client (React is a peer dependency; they use only
// useState/useEffect/useCallback/useRef, so they work in React Native too).
//
//   const client = useMemo(() => createRagchatClient({...}), []);
//   <RagchatProvider client={client}> ... </RagchatProvider>
//   const { ask, loading, error } = useAsk();
//   const answer = useAttemptStream(attemptId);         // text, status, sources
//   const conv = useConversation(conversationId, 50);   // messages, loadOlder()
//   const { live } = useViewerEvents((e) => refetchList(e.conversationId), { onLive: (up) => up && refetchList() });
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { RagchatClient } from './client';
import type {
  AskInput,
  ClientAskMutation,
  ClientConversationEventsSubscription,
  ClientConversationPathQuery,
  ClientViewerEventsSubscription,
} from './gql/graphql';
import { followEvents } from './events';
import { initialAttemptState } from './merge';
import { AskMutation, ConversationEventsSubscription, ConversationPathQuery, ViewerEventsSubscription } from './operations';
import { streamAttempt, type AttemptEvent, type AttemptStreamState, type StreamAttemptOptions } from './stream';

const ClientContext = createContext<RagchatClient | null>(null);

/** Makes a client available to the hooks below it. */
export function RagchatProvider({ client, children }: { client: RagchatClient; children?: ReactNode }) {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

/** The provider's client; throws outside a RagchatProvider. */
export function useRagchatClient(): RagchatClient {
  const c = useContext(ClientContext);
  if (!c) throw new Error('useRagchatClient: no RagchatProvider above this component');
  return c;
}

/** The ask mutation: ask(input) resolves with its payload (attempt.id to stream). */
export function useAsk() {
  const client = useRagchatClient();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [data, setData] = useState<ClientAskMutation['ask'] | null>(null);
  const ask = useCallback(
    async (input: AskInput) => {
      setLoading(true);
      setError(null);
      try {
        const res = await client.request(AskMutation, { input });
        setData(res.ask);
        return res.ask;
      } catch (err) {
        setError(err);
        throw err;
      } finally {
        setLoading(false);
      }
    },
    [client],
  );
  return { ask, loading, error, data };
}

/** The result of useAttemptStream: the merged state and the stream's error. */
export interface AttemptStreamResult extends AttemptStreamState {
  error: unknown;
}

/**
 * Follows an attempt (null: none) with streamAttempt; it re-renders on
 * every change and resumes by itself after a disconnect.
 */
export function useAttemptStream(attemptId: string | null | undefined, opts: Pick<StreamAttemptOptions, 'initialText'> = {}): AttemptStreamResult {
  const client = useRagchatClient();
  const [state, setState] = useState<AttemptStreamState>(() => initialAttemptState<AttemptEvent>(opts.initialText ?? ''));
  const [error, setError] = useState<unknown>(null);
  const initialText = opts.initialText;
  useEffect(() => {
    if (!attemptId) return;
    setError(null);
    setState(initialAttemptState<AttemptEvent>(initialText ?? ''));
    const s = streamAttempt(client, attemptId, { initialText, onState: setState });
    s.done.catch(setError);
    return () => s.stop();
  }, [client, attemptId, initialText]);
  return { ...state, error };
}

type PathEdge = NonNullable<NonNullable<NonNullable<ClientConversationPathQuery['conversation']>['currentPath']['edges']>[number]>;
type PathNode = NonNullable<PathEdge['node']>;

/** The result of useConversation. */
export interface ConversationResult {
  conversation: ClientConversationPathQuery['conversation'] | null;
  /** The messages of the current path loaded so far, oldest first. */
  messages: PathNode[];
  hasOlder: boolean;
  loading: boolean;
  error: unknown;
  /** Loads the page before the oldest message loaded. */
  loadOlder(): Promise<void>;
  /** Reads the newest page again (after an answer, or a BRANCH_SELECTED event). */
  refetch(): Promise<void>;
}

/** The current path of a conversation, paged from the newest message back. */
export function useConversation(conversationId: string | null | undefined, pageSize = 50): ConversationResult {
  const client = useRagchatClient();
  const [conversation, setConversation] = useState<ConversationResult['conversation']>(null);
  const [edges, setEdges] = useState<PathEdge[]>([]);
  const [hasOlder, setHasOlder] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const start = useRef<string | null>(null);
  const current = useRef(0); // drops answers of a superseded read

  const read = useCallback(
    async (before: string | null) => {
      if (!conversationId) return;
      const my = before ? current.current : ++current.current;
      setLoading(true);
      try {
        const res = await client.request(ConversationPathQuery, { id: conversationId, last: pageSize, before });
        if (my !== current.current) return;
        const conv = res.conversation ?? null;
        setConversation(conv);
        const page = (conv?.currentPath.edges ?? []).filter((e): e is PathEdge => e != null);
        setEdges((old) => (before ? [...page, ...old] : page));
        start.current = conv?.currentPath.pageInfo.startCursor ?? null;
        setHasOlder(conv?.currentPath.pageInfo.hasPreviousPage ?? false);
        setError(null);
      } catch (err) {
        if (my === current.current) setError(err);
      } finally {
        if (my === current.current) setLoading(false);
      }
    },
    [client, conversationId, pageSize],
  );

  useEffect(() => {
    setEdges([]);
    setConversation(null);
    start.current = null;
    void read(null);
  }, [read]);

  return {
    conversation,
    messages: edges.map((e) => e.node).filter((n): n is PathNode => n != null),
    hasOlder,
    loading,
    error,
    loadOlder: () => (start.current ? read(start.current) : Promise.resolve()),
    refetch: () => read(null),
  };
}

/** The options of useViewerEvents and useConversationEvents. */
export interface LiveEventsOptions {
  /**
   * Called with true each time the stream is live (its SUBSCRIBED event,
   * again after every reconnect): read what it keeps in sync then. Called
   * with false when the socket closes.
   */
  onLive?: (live: boolean) => void;
}

/** The result of useViewerEvents and useConversationEvents. */
export interface LiveEvents {
  /**
   * Whether the stream is live: every change made since reaches onEvent
   * (docs/API.md, "Knowing a stream is live"). False until the server's
   * SUBSCRIBED, and while the socket is down.
   */
  live: boolean;
}

/** Follows a subscription (subscribe, null: none), subscribing again when a dependency changes. */
function useLiveEvents<E>(
  subscribe: ((h: { onEvent: (e: E) => void; onLive: (l: boolean) => void }) => () => void) | null,
  deps: readonly unknown[],
  onEvent: (e: E) => void,
  opts: LiveEventsOptions,
): LiveEvents {
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const onLive = useRef(opts.onLive);
  onLive.current = opts.onLive;
  const sub = useRef(subscribe);
  sub.current = subscribe;
  useEffect(() => {
    setLive(false);
    if (!sub.current) return;
    return sub.current({
      onEvent: (e) => handler.current(e),
      onLive: (l) => {
        setLive(l);
        onLive.current?.(l);
      },
    });
    // subscribe is read through sub: deps say when it changes.
  }, deps);
  return { live };
}

/**
 * Calls onEvent for each of the viewer's events (a conversation created,
 * renamed, deleted …); live says when the feed is live (SUBSCRIBED, which
 * onEvent never gets).
 */
export function useViewerEvents(onEvent: (e: ClientViewerEventsSubscription['viewerEvents']) => void, opts: LiveEventsOptions = {}): LiveEvents {
  const client = useRagchatClient();
  return useLiveEvents((h) => followEvents(client, ViewerEventsSubscription, {}, 'viewerEvents', h), [client], onEvent, opts);
}

/**
 * Calls onEvent for each change of a conversation (null: none): messages,
 * attempts, the current branch; live says when the stream is live.
 */
export function useConversationEvents(
  conversationId: string | null | undefined,
  onEvent: (e: ClientConversationEventsSubscription['conversationEvents']) => void,
  opts: LiveEventsOptions = {},
): LiveEvents {
  const client = useRagchatClient();
  const subscribe = conversationId
    ? (h: { onEvent: (e: ClientConversationEventsSubscription['conversationEvents']) => void; onLive: (l: boolean) => void }) =>
        followEvents(client, ConversationEventsSubscription, { conversationId }, 'conversationEvents', h)
    : null;
  return useLiveEvents(subscribe, [client, conversationId], onEvent, opts);
}
