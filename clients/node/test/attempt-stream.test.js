// Unit tests of lib/attempt-stream.js: applying attemptEvents by seq makes
// every replay harmless.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyAttemptEvent,
  applyAttemptEvents,
  codePointLength,
  initialAttemptState,
  SeqGapError,
} from '../lib/attempt-stream.js';

// deltas splits the start of an answer into DELTA events of the given code
// point sizes, with seq = the answer's length in code points after each,
// as the server sends them.
function deltas(answer, ...sizes) {
  const points = [...answer];
  const out = [];
  let at = 0;
  for (const n of sizes) {
    const text = points.slice(at, at + n).join('');
    at += n;
    out.push({ kind: 'DELTA', seq: at, text });
  }
  return out;
}

const started = { kind: 'STARTED', standaloneQuestion: '上传文件最大是多少？', requiresHistory: false };
const sources = { kind: 'SOURCES', sources: [{ label: 'S1', available: true }] };
const completed = (answer) => ({ kind: 'COMPLETED', attempt: { status: 'COMPLETED', answer } });

test('code points, not UTF-16 units', () => {
  assert.equal(codePointLength('上传'), 2);
  assert.equal('👍🏽'.length, 4);
  assert.equal(codePointLength('👍🏽'), 2);
  assert.equal(codePointLength('a😀b'), 3);
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
  for (const [label, events] of cases) {
    test(`${name}: ${label}`, () => {
      const frozen = structuredClone(events);
      let state = initialAttemptState();
      let shown = '';
      for (const e of events) {
        state = applyAttemptEvent(state, e);
        shown += state.appended; // what an incremental renderer appends
      }
      assert.equal(state.text, answer);
      assert.equal(shown, answer, 'nothing is appended twice');
      assert.equal(state.seq, n);
      assert.equal(state.status, 'COMPLETED');
      assert.deepEqual(events, frozen, 'events are not mutated');
    });
  }
}

test('STARTED and SOURCES are idempotent', () => {
  const once = applyAttemptEvents([started, sources]);
  const twice = applyAttemptEvents([started, sources, started, sources]);
  assert.deepEqual(twice, once);
  assert.equal(once.standaloneQuestion, started.standaloneQuestion);
  assert.deepEqual(once.sources, sources.sources);
});

test('a gap asks for a resume from what the client has', () => {
  const answer = 'abc😀def';
  const [first, , third] = deltas(answer, 2, 2, 3);
  const state = applyAttemptEvent(initialAttemptState(), first);
  assert.throws(
    () => applyAttemptEvent(state, third),
    (err) => err instanceof SeqGapError && err.afterSeq === 2,
  );
});

test('FAILED keeps the text and records the code', () => {
  const state = applyAttemptEvents([
    ...deltas('partial', 7),
    { kind: 'FAILED', failureCode: 'CANCELLED', failureMessage: 'cancelled', attempt: { status: 'FAILED' } },
  ]);
  assert.equal(state.status, 'FAILED');
  assert.equal(state.failureCode, 'CANCELLED');
  assert.equal(state.text, 'partial');
});

test('COMPLETED is authoritative for a client that selected no text', () => {
  const state = applyAttemptEvents([started, completed('全文 👍')]);
  assert.equal(state.text, '全文 👍');
  assert.equal(state.seq, 4);
});

test('COMPLETED replaces streamed text that the saved answer changed', () => {
  const state = applyAttemptEvents([...deltas('See [S1] and [S9].', 18), completed('See [S1] and .')]);
  assert.equal(state.text, 'See [S1] and .');
  assert.equal(state.replaced, true);
  assert.equal(state.appended, '');
});

test('the input state is not mutated', () => {
  const s0 = initialAttemptState();
  const copy = structuredClone(s0);
  applyAttemptEvent(s0, { kind: 'DELTA', seq: 2, text: 'hi' });
  assert.deepEqual(s0, copy);
});
