// React hooks over the client (React is a peer dependency; they use only
// useState/useEffect/useCallback/useRef, so they work in React Native too).
//
//   const client = useMemo(() => createRagchatClient({...}), []);
//   <RagchatProvider client={client}> ... </RagchatProvider>
//   const { ask, loading, error } = useAsk();
//   const answer = useAttemptStream(attemptId);         // text, status, sources
//   const conv = useConversation(conversationId, 50);   // messages, loadOlder()
//   useViewerEvents((e) => refetchList(e.conversationId));
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { RagchatClient } from './client';
import type {
  AskInput,
  ClientAskMutation,
  ClientConversationPathQuery,
  ClientViewerEventsSubscription,
} from './gql/graphql';
import { initialAttemptState } from './merge';
import { AskMutation, ConversationPathQuery, ViewerEventsSubscription } from './operations';
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

/** Calls onEvent for each of the viewer's events (a conversation created, renamed, deleted …). */
export function useViewerEvents(onEvent: (e: ClientViewerEventsSubscription['viewerEvents']) => void): void {
  const client = useRagchatClient();
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(
    () =>
      client.subscribe(ViewerEventsSubscription, {}, {
        next: (r) => {
          if (r.data) handler.current(r.data.viewerEvents);
        },
        error: () => {},
        complete: () => {},
      }),
    [client],
  );
}
