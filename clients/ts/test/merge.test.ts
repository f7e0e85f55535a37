// Unit tests of the seq-aware merge (ported from clients/node's tests):
// applying attemptEvents by seq makes every replay harmless.
import { expect, test } from 'vitest';
import {
  type AttemptEventLike,
  applyAttemptEvent,
  applyAttemptEvents,
  codePointLength,
  initialAttemptState,
  SeqGapError,
} from '../src/merge';
// deltas splits the start of an answer into DELTA events of the given code
// point sizes, with seq = the answer's length in code points after each,
// as the server sends them.
function deltas(answer: string, ...sizes: number[]): AttemptEventLike[] {
  const points = [...answer];
  const out: AttemptEventLike[] = [];
  let at = 0;
  for (const n of sizes) {
    const text = points.slice(at, at + n).join('');
    at += n;
    out.push({ kind: 'DELTA', seq: at, text });
  }
  return out;
}

const started: AttemptEventLike = { seq: 0, kind: 'STARTED', standaloneQuestion: '上传文件最大是多少？', requiresHistory: false };
const sources: AttemptEventLike = { seq: 0, kind: 'SOURCES', sources: [{ label: 'S1', available: true }] };
const completed = (answer: string): AttemptEventLike => ({ kind: 'COMPLETED', seq: 0, attempt: { status: 'COMPLETED', answer } });

test('code points, not UTF-16 units', () => {
  expect(codePointLength('上传')).toEqual(2);
  expect('👍🏽'.length).toEqual(4);
  expect(codePointLength('👍🏽')).toEqual(2);
  expect(codePointLength('a😀b')).toEqual(3);
});

const answers = [
  ['ASCII', 'Uploads are limited to 20MB per file.'],
  ['Chinese', '单个文件最大 20MB，超过会返回 413。'],
  ['emoji', 'Done 👍🏽 — files up to 20MB 📁, bigger ones get 413 🚫.'],
];

for (const [name, answer] of answers) {
  const n = codePointLength(answer);
  const cases = [
    ['one pass', [started, sources, ...deltas(answer, 5, n - 5), completed(answer)]],
    [
      'reconnect replays from afterSeq 0 (merged replay delta)',
      [started, sources, ...deltas(answer, 3, 4), started, sources, ...deltas(answer, 7, n - 7), completed(answer)],
    ],
    [
      'replay delta overlaps what the client has',
      [started, ...deltas(answer, 3, 4), ...deltas(answer, 5, n - 5), completed(answer)],
    ],
    ['duplicate deltas', [...deltas(answer, 2, 2), ...deltas(answer, 2, 2, n - 4), completed(answer)]],
    ['a resume with afterSeq sends only the rest', [...deltas(answer, 6), ...deltas(answer, 6, n - 6).slice(1), completed(answer)]],
  ];
  for (const [label, events] of cases as [string, AttemptEventLike[]][]) {
    test(`${name}: ${label}`, () => {
      const frozen = structuredClone(events);
      let state = initialAttemptState();
      let shown = '';
      for (const e of events) {
        state = applyAttemptEvent(state, e);
        shown += state.appended; // what an incremental renderer appends
      }
      expect(state.text).toEqual(answer);
      expect(shown).toEqual(answer);
      expect(state.seq).toEqual(n);
      expect(state.status).toEqual('COMPLETED');
      expect(events).toEqual(frozen);
    });
  }
}

test('STARTED and SOURCES are idempotent', () => {
  const once = applyAttemptEvents([started, sources]);
  const twice = applyAttemptEvents([started, sources, started, sources]);
  expect(twice).toEqual(once);
  expect(once.standaloneQuestion).toEqual(started.standaloneQuestion);
  expect(once.sources).toEqual(sources.sources);
});

test('a gap asks for a resume from what the client has', () => {
  const answer = 'abc😀def';
  const [first, , third] = deltas(answer, 2, 2, 3);
  const state = applyAttemptEvent(initialAttemptState(), first);
  expect(() => applyAttemptEvent(state, third)).toThrow(SeqGapError);
  try {
    applyAttemptEvent(state, third);
  } catch (err) {
    expect((err as SeqGapError).afterSeq).toBe(2);
  }
});

test('FAILED keeps the text and records the code', () => {
  const state = applyAttemptEvents([
    ...deltas('partial', 7),
    { kind: 'FAILED', seq: 7, failureCode: 'CANCELLED', failureMessage: 'cancelled', attempt: { status: 'FAILED' } },
  ]);
  expect(state.status).toEqual('FAILED');
  expect(state.failureCode).toEqual('CANCELLED');
  expect(state.text).toEqual('partial');
});

test('COMPLETED is authoritative for a client that selected no text', () => {
  const state = applyAttemptEvents([started, completed('全文 👍')]);
  expect(state.text).toEqual('全文 👍');
  expect(state.seq).toEqual(4);
});

test('COMPLETED replaces streamed text that the saved answer changed', () => {
  const state = applyAttemptEvents([...deltas('See [S1] and [S9].', 18), completed('See [S1] and .')]);
  expect(state.text).toEqual('See [S1] and .');
  expect(state.replaced).toEqual(true);
  expect(state.appended).toEqual('');
});

test('the input state is not mutated', () => {
  const s0 = initialAttemptState();
  const copy = structuredClone(s0);
  applyAttemptEvent(s0, { kind: 'DELTA', seq: 2, text: 'hi' } as AttemptEventLike);
  expect(s0).toEqual(copy);
});
