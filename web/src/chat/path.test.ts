import { describe, expect, test } from 'vitest';
import { appendQuestion, mergeLatest, prependOlder, siblingAt, turnsOf, type LoadedPath, type PathEntry } from './path';

const u = (id: string): PathEntry => ({ id, role: 'USER' });
const a = (id: string): PathEntry => ({ id, role: 'ASSISTANT' });

describe('mergeLatest', () => {
  const loaded: LoadedPath = { entries: [u('q1'), a('a1'), u('q2'), a('a2'), u('q3'), a('a3')], cursor: 'c-old', more: true };
  const cases: { name: string; page: PathEntry[]; more: boolean; want: LoadedPath }[] = [
    {
      name: 'a switch below the page start keeps the loaded ancestors and their cursor',
      page: [u('q2'), a('a2'), u('q3b'), a('a3b')],
      more: true,
      want: { entries: [u('q1'), a('a1'), u('q2'), a('a2'), u('q3b'), a('a3b')], cursor: 'c-old', more: true },
    },
    {
      name: 'a page not starting on the loaded path replaces it',
      page: [u('x1'), a('y1')],
      more: true,
      want: { entries: [u('x1'), a('y1')], cursor: 'c-new', more: true },
    },
    {
      name: 'a page that is the whole path replaces it',
      page: [u('q1'), a('a1b')],
      more: false,
      want: { entries: [u('q1'), a('a1b')], cursor: 'c-new', more: false },
    },
    {
      name: 'an empty path empties the view',
      page: [],
      more: false,
      want: { entries: [], cursor: 'c-new', more: false },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const once = mergeLatest(loaded, c.page, 'c-new', c.more);
      expect(once).toEqual(c.want);
      // Idempotent: the event's re-read and the mutation's agree, and
      // the second changes nothing, not even the object (no render).
      expect(mergeLatest(once, c.page, 'c-new', c.more)).toBe(once);
    });
  }
});

test('mergeLatest of the latest page as loaded returns the loaded path itself', () => {
  const loaded: LoadedPath = { entries: [u('q1'), a('a1'), u('q2'), a('a2')], cursor: 'c-old', more: true };
  expect(mergeLatest(loaded, [u('q2'), a('a2')], 'c-new', true)).toBe(loaded);
});

test('prependOlder adds the older page in front, without duplicates', () => {
  const cur: LoadedPath = { entries: [u('q2'), a('a2')], cursor: 'c2', more: true };
  expect(prependOlder(cur, [u('q1'), a('a1'), u('q2')], 'c1', false)).toEqual({ entries: [u('q1'), a('a1'), u('q2'), a('a2')], cursor: 'c1', more: false });
});

test('appendQuestion adds a question once', () => {
  const cur: LoadedPath = { entries: [u('q1'), a('a1')], cursor: null, more: false };
  const once = appendQuestion(cur, 'q2');
  expect(once.entries).toEqual([u('q1'), a('a1'), u('q2')]);
  expect(appendQuestion(once, 'q2')).toBe(once);
});

describe('turnsOf', () => {
  const cases: { name: string; entries: PathEntry[]; want: [string | null, string | null][] }[] = [
    { name: 'rounds', entries: [u('q1'), a('a1'), u('q2'), a('a2')], want: [['q1', 'a1'], ['q2', 'a2']] },
    { name: 'an unanswered question, then another', entries: [u('q1'), u('q2'), a('a2')], want: [['q1', null], ['q2', 'a2']] },
    { name: 'a page starting with an answer', entries: [a('a0'), u('q1')], want: [[null, 'a0'], ['q1', null]] },
    { name: 'system messages are not shown', entries: [{ id: 's', role: 'SYSTEM' }, u('q1'), a('a1')], want: [['q1', 'a1']] },
    { name: 'empty', entries: [], want: [] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      expect(turnsOf(c.entries).map((t) => [t.question, t.answer])).toEqual(c.want);
    });
  }
});

test('siblingAt stops at both ends', () => {
  expect(siblingAt(['a', 'b', 'c'], 1, -1)).toBe('a');
  expect(siblingAt(['a', 'b', 'c'], 1, 1)).toBe('c');
  expect(siblingAt(['a', 'b', 'c'], 0, -1)).toBeNull();
  expect(siblingAt(['a', 'b', 'c'], 2, 1)).toBeNull();
});
