// The seq-aware merge of ragchat's attemptEvents into the answer a client
// shows (docs/API.md, "Consuming attemptEvents"). It makes every replay
// harmless: graphql-ws resubscribes with the original variables after a
// reconnect, and a resume with a stale afterSeq repeats text.
//
// - DELTA: seq is the answer's length in Unicode code points after the
//   delta, so it covers code points [seq - length(text), seq). Text the
//   client has is skipped; of an overlapping delta only the new suffix is
//   appended; a delta starting past the client's length is a gap
//   (SeqGapError: resubscribe with afterSeq = the client's length).
// - STARTED and SOURCES replace (never add); applying them again changes
//   nothing.
// - COMPLETED carries the final attempt, whose answer replaces the streamed
//   text; FAILED carries the failure code and keeps the text.
//
// The module is pure and its cost per event is proportional to the event,
// not to the answer: `appended` is what the caller paints, so a whole
// answer costs linear time to merge and to render.

/** The fields of an attemptEvents payload the merge reads. */
export interface AttemptEventLike {
  kind: string;
  seq: number;
  text?: string | null;
  standaloneQuestion?: string | null;
  requiresHistory?: boolean | null;
  sources?: readonly unknown[] | null;
  attempt?: { answer?: string | null; [field: string]: unknown } | null;
  failureCode?: string | null;
  failureMessage?: string | null;
}

/** What the client shows of one attempt. */
export interface AttemptState<E extends AttemptEventLike = AttemptEventLike> {
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  standaloneQuestion: string | null;
  requiresHistory: boolean | null;
  sources: NonNullable<E['sources']>;
  text: string;
  /** The length of text in code points: the afterSeq to resume with. */
  seq: number;
  failureCode: string | null;
  failureMessage: string | null;
  attempt: E['attempt'] | null;
  /** The text the last event added (empty for a replay). */
  appended: string;
  /** The last event replaced the text instead of extending it. */
  replaced: boolean;
}

/** The state before any event; `text` may start from a checkpoint. */
export function initialAttemptState<E extends AttemptEventLike = AttemptEventLike>(text = ''): AttemptState<E> {
  return {
    status: 'PENDING',
    standaloneQuestion: null,
    requiresHistory: null,
    sources: [] as unknown as NonNullable<E['sources']>,
    text,
    seq: codePointLength(text),
    failureCode: null,
    failureMessage: null,
    attempt: null,
    appended: '',
    replaced: false,
  };
}

/** Thrown when a DELTA starts after the text the client has. */
export class SeqGapError extends Error {
  readonly afterSeq: number;
  constructor(have: number, from: number) {
    super(`attemptEvents: text missing between ${have} and ${from}; resubscribe with afterSeq ${have}`);
    this.name = 'SeqGapError';
    this.afterSeq = have;
  }
}

/** The length of s in Unicode code points (not UTF-16 units). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The code points of s from code point index `from` on. */
function codePointsFrom(s: string, from: number): string {
  if (from <= 0) return s;
  let i = 0;
  let offset = 0;
  while (i < from && offset < s.length) {
    const c = s.charCodeAt(offset);
    offset += c >= 0xd800 && c <= 0xdbff && offset + 1 < s.length ? 2 : 1;
    i++;
  }
  return s.slice(offset);
}

/** Applies one event and returns the new state; it mutates nothing. */
export function applyAttemptEvent<E extends AttemptEventLike>(state: AttemptState<E>, event: E): AttemptState<E> {
  const quiet = { appended: '', replaced: false };
  switch (event.kind) {
    case 'STARTED':
      return {
        ...state,
        ...quiet,
        standaloneQuestion: event.standaloneQuestion ?? state.standaloneQuestion,
        requiresHistory: event.requiresHistory ?? state.requiresHistory,
      };
    case 'SOURCES':
      return { ...state, ...quiet, sources: (event.sources ?? state.sources) as AttemptState<E>['sources'] };
    case 'DELTA': {
      const text = event.text ?? '';
      const end = event.seq;
      if (end <= state.seq) return { ...state, ...quiet }; // already applied
      const start = end - codePointLength(text);
      if (start > state.seq) throw new SeqGapError(state.seq, start);
      const appended = codePointsFrom(text, state.seq - start);
      return { ...state, appended, replaced: false, text: state.text + appended, seq: end };
    }
    case 'COMPLETED': {
      const answer = event.attempt?.answer;
      const next: AttemptState<E> = { ...state, ...quiet, status: 'COMPLETED', attempt: event.attempt ?? state.attempt };
      if (typeof answer === 'string' && answer !== state.text) {
        // The saved answer is authoritative (unknown citation labels are
        // stripped from it, so it may differ from the streamed text).
        if (answer.startsWith(state.text)) next.appended = answer.slice(state.text.length);
        else next.replaced = true;
        next.text = answer;
        next.seq = codePointLength(answer);
      }
      return next;
    }
    case 'FAILED':
      return {
        ...state,
        ...quiet,
        status: 'FAILED',
        failureCode: event.failureCode ?? state.failureCode,
        failureMessage: event.failureMessage ?? state.failureMessage,
        attempt: event.attempt ?? state.attempt,
      };
    default:
      return { ...state, ...quiet }; // a kind this client does not know
  }
}

/** Applies a list of events, from the initial state by default. */
export function applyAttemptEvents<E extends AttemptEventLike>(events: readonly E[], state: AttemptState<E> = initialAttemptState<E>()): AttemptState<E> {
  return events.reduce<AttemptState<E>>(applyAttemptEvent, state);
}
