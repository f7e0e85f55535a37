// Applies ragchat's attemptEvents to the answer a client shows, so that any
// replay is harmless: the stream a client receives after graphql-ws
// reconnects and resubscribes with its original variables (afterSeq 0), or
// after a resume with a lower afterSeq than needed, repeats events the
// client already has.
//
// The rules (docs/API.md, "Consuming attemptEvents"):
// - DELTA: `seq` is the answer's length in Unicode code points after the
//   delta, so the delta covers code points [seq - length(text), seq). Text
//   the client already has (seq <= its length) is skipped; of a delta that
//   overlaps it, only the new suffix is appended. A delta that starts after
//   the client's length means text was missed: resubscribe with afterSeq =
//   the client's length (SeqGapError says so).
// - STARTED and SOURCES carry the same values every time they are sent for
//   an attempt: applying them again changes nothing.
// - COMPLETED carries the final attempt: its answer is the whole text and
//   replaces the streamed one (the saved answer has unknown citation labels
//   stripped, so it may differ; `replaced` is then true). FAILED carries the
//   failure code.
// Lengths are code points, not JavaScript string lengths (UTF-16 units):
// an emoji is one code point but two units.
//
// The module is pure: applyAttemptEvent returns a new state and never
// mutates its arguments.

/** The state before any event. */
export function initialAttemptState() {
  return {
    status: 'PENDING',
    standaloneQuestion: null,
    requiresHistory: null,
    sources: [],
    text: '',
    seq: 0, // the length of text in code points
    failureCode: null,
    failureMessage: null,
    attempt: null,
    appended: '',
    replaced: false,
  };
}

/** Thrown when a DELTA starts after the text the client has. */
export class SeqGapError extends Error {
  constructor(have, from) {
    super(`attemptEvents: text missing between ${have} and ${from}; resubscribe with afterSeq ${have}`);
    this.name = 'SeqGapError';
    this.afterSeq = have;
  }
}

/** The length of s in Unicode code points. */
export function codePointLength(s) {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The code points of s from index `from` (a code point index) on. */
function codePointsFrom(s, from) {
  if (from <= 0) return s;
  let i = 0;
  let offset = 0;
  for (const ch of s) {
    if (i === from) break;
    offset += ch.length;
    i++;
  }
  return s.slice(offset);
}

/**
 * Applies one attemptEvents payload to state and returns the new state.
 * `appended` on the result is the text this event added (empty for a
 * replayed delta), for clients that render incrementally; `replaced` is
 * true when the event replaced the text instead (a COMPLETED answer that
 * does not extend the streamed text).
 */
export function applyAttemptEvent(state, event) {
  switch (event.kind) {
    case 'STARTED':
      return {
        ...state,
        appended: '',
        replaced: false,
        standaloneQuestion: event.standaloneQuestion ?? state.standaloneQuestion,
        requiresHistory: event.requiresHistory ?? state.requiresHistory,
      };
    case 'SOURCES':
      return { ...state, appended: '', replaced: false, sources: event.sources ?? state.sources };
    case 'DELTA': {
      const text = event.text ?? '';
      const end = event.seq;
      if (end <= state.seq) return { ...state, appended: '', replaced: false }; // already applied
      const start = end - codePointLength(text);
      if (start > state.seq) throw new SeqGapError(state.seq, start);
      const appended = codePointsFrom(text, state.seq - start);
      return { ...state, appended, replaced: false, text: state.text + appended, seq: end };
    }
    case 'COMPLETED': {
      const answer = event.attempt?.answer;
      const next = { ...state, appended: '', replaced: false, status: 'COMPLETED', attempt: event.attempt ?? state.attempt };
      if (typeof answer === 'string' && answer !== state.text) {
        // The final attempt is authoritative (and catches up a client that
        // selected no text).
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
        appended: '',
        replaced: false,
        status: 'FAILED',
        failureCode: event.failureCode ?? state.failureCode,
        failureMessage: event.failureMessage ?? state.failureMessage,
        attempt: event.attempt ?? state.attempt,
      };
    default:
      return { ...state, appended: '', replaced: false }; // a kind this client does not know
  }
}

/** Applies a list of events to the initial state. */
export function applyAttemptEvents(events, state = initialAttemptState()) {
  return events.reduce(applyAttemptEvent, state);
}
