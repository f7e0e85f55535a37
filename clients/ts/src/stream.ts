// streamAttempt follows one attempt's answer over attemptEvents and keeps
// the text a client shows, whatever the network does:
//
// - every event goes through the seq-aware merge (src/merge.ts): a DELTA
//   whose seq the client already has is skipped and of an overlapping one
//   only the new suffix is appended, so no replay duplicates text;
// - after any disconnect (a dropped socket, a server restart closing with
//   1012) it resubscribes itself with afterSeq = the code points it has, so
//   the server sends only what is missing (graphql-ws's own resubscription
//   would repeat the original variables, afterSeq 0);
// - a DELTA that starts past the text it has (a gap) also resubscribes
//   from there, as does a stream the server ended before COMPLETED or
//   FAILED;
// - it ends on COMPLETED or FAILED (the saved answer replaces the streamed
//   text), on a GraphQL error (NOT_FOUND for a foreign or deleted attempt,
//   never retried), on stop(), or after maxResubscribes resubscriptions.
import type { ClientAttemptEventsSubscription } from './gql/graphql';
import { AttemptEventsSubscription } from './operations';
import type { RagchatClient, RagchatGraphQLError } from './client';
import { RagchatError } from './client';
import { applyAttemptEvent, initialAttemptState, SeqGapError, type AttemptState } from './merge';

/** One attemptEvents payload, as the package's subscription selects it. */
export type AttemptEvent = ClientAttemptEventsSubscription['attemptEvents'];

/** The state streamAttempt reports: the merge's, over the typed event. */
export type AttemptStreamState = AttemptState<AttemptEvent>;

/** The options of streamAttempt. */
export interface StreamAttemptOptions {
  /** Text the client already shows (a checkpoint): the first afterSeq is its length. */
  initialText?: string;
  /** Called after every event that was applied, with the new state. */
  onState?: (state: AttemptStreamState) => void;
  /** Called before each subscription with the afterSeq it asks from (for logs and tests). */
  onSubscribe?: (afterSeq: number) => void;
  /** Resubscriptions allowed before the stream fails (default 50). */
  maxResubscribes?: number;
}

/** A running stream. */
export interface AttemptStream {
  /** The current state. */
  readonly state: AttemptStreamState;
  /** Resolves with the final state on COMPLETED or FAILED, rejects on an error. */
  readonly done: Promise<AttemptStreamState>;
  /** Ends the stream; done then resolves with the state reached. */
  stop(): void;
}

/** Streams an attempt's events into a state; see the file comment. */
export function streamAttempt(client: RagchatClient, attemptId: string, opts: StreamAttemptOptions = {}): AttemptStream {
  const max = opts.maxResubscribes ?? 50;
  let state = initialAttemptState<AttemptEvent>(opts.initialText ?? '');
  let generation = 0;
  let resubscribes = 0;
  let finished = false;
  let unsubscribe: (() => void) | null = null;
  let resolveDone!: (s: AttemptStreamState) => void;
  let rejectDone!: (e: unknown) => void;
  const done = new Promise<AttemptStreamState>((res, rej) => {
    resolveDone = res;
    rejectDone = rej;
  });
  // A rejection nobody awaits is not an unhandled one: the caller may only
  // read state.
  done.catch(() => {});

  const finish = (err?: unknown) => {
    if (finished) return;
    finished = true;
    generation++;
    removeClosed();
    const u = unsubscribe;
    unsubscribe = null;
    u?.();
    if (err === undefined) resolveDone(state);
    else rejectDone(err);
  };

  const subscribe = () => {
    const gen = ++generation;
    const afterSeq = state.seq;
    opts.onSubscribe?.(afterSeq);
    unsubscribe = client.subscribe(AttemptEventsSubscription, { attemptId, afterSeq }, {
      next(result) {
        if (gen !== generation) return;
        if (result.errors?.length) {
          finish(new RagchatError(result.errors as unknown as RagchatGraphQLError[], 200));
          return;
        }
        const event = result.data?.attemptEvents;
        if (!event) return;
        try {
          state = applyAttemptEvent(state, event);
        } catch (err) {
          if (err instanceof SeqGapError) {
            resubscribe();
            return;
          }
          finish(err);
          return;
        }
        if (state.appended !== '' || state.replaced || event.kind !== 'DELTA') opts.onState?.(state);
        if (state.status === 'COMPLETED' || state.status === 'FAILED') finish();
      },
      error(err) {
        if (gen !== generation) return;
        // A GraphQL error list (the server refused the subscription) ends
        // the stream; a close event graphql-ws gave up on does too.
        if (Array.isArray(err)) finish(new RagchatError(err as RagchatGraphQLError[], 200));
        else finish(err);
      },
      complete() {
        if (gen !== generation) return;
        // The server ended the stream before the attempt ended (a
        // shutdown): ask again from where we are.
        resubscribe();
      },
    });
  };

  function resubscribe() {
    if (finished) return;
    generation++; // events of the old subscription are ignored from now on
    const u = unsubscribe;
    unsubscribe = null;
    u?.();
    if (++resubscribes > max) {
      finish(new Error(`streamAttempt: gave up after ${max} resubscriptions`));
      return;
    }
    subscribe();
  }

  // After any close of the socket, resubscribe with the afterSeq reached.
  // It runs after graphql-ws has handled the close itself (its listeners
  // come after this one), so the new subscription opens a new socket.
  const removeClosed = client.onClosed(() => {
    if (finished) return;
    setTimeout(resubscribe, 0);
  });

  subscribe();
  return {
    get state() {
      return state;
    },
    done,
    stop: () => finish(),
  };
}
