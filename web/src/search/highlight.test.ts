// Unit tests of snippet highlighting: offsets are UTF-16 code units, and
// out-of-range, empty, unordered and overlapping highlights are tolerated.
import { expect, test } from 'vitest';
import { segments, type Segment } from './highlight';

const m = (text: string): Segment => ({ text, mark: true });
const p = (text: string): Segment => ({ text, mark: false });

test.each<[string, string, { start: number; end: number }[], Segment[]]>([
  ['no highlights', 'hello world', [], [p('hello world')]],
  ['empty text', '', [], [p('')]],
  ['one English term', 'reset the VPN client', [{ start: 10, end: 13 }], [p('reset the '), m('VPN'), p(' client')]],
  ['a Chinese term', 'VPN 设备报错怎么办', [{ start: 4, end: 8 }], [p('VPN '), m('设备报错'), p('怎么办')]],
  ['at both ends', '上传文件最大', [{ start: 0, end: 2 }, { start: 4, end: 6 }], [m('上传'), p('文件'), m('最大')]],
  ['unordered', 'a b c', [{ start: 4, end: 5 }, { start: 0, end: 1 }], [m('a'), p(' b '), m('c')]],
  ['overlapping merge', 'abcdef', [{ start: 1, end: 4 }, { start: 2, end: 5 }], [p('a'), m('bcde'), p('f')]],
  ['touching merge', 'abcdef', [{ start: 1, end: 3 }, { start: 3, end: 5 }], [p('a'), m('bcde'), p('f')]],
  ['clamped to the text', 'abc', [{ start: -2, end: 99 }], [m('abc')]],
  ['empty and inverted dropped', 'abc', [{ start: 1, end: 1 }, { start: 2, end: 1 }], [p('abc')]],
  ['UTF-16 offsets past an emoji', '😀 VPN', [{ start: 3, end: 6 }], [p('😀 '), m('VPN')]],
  ['a surrogate pair is not split', '😀x', [{ start: 1, end: 3 }], [m('😀x')]],
])('segments: %s', (_, text, hl, want) => {
  expect(segments(text, hl)).toEqual(want);
});

test('segments keep all of the text, in order', () => {
  const text = '如何重置 VPN 密码？VPN 客户端';
  const got = segments(text, [{ start: 5, end: 8 }, { start: 12, end: 15 }]);
  expect(got.map((s) => s.text).join('')).toBe(text);
  expect(got.filter((s) => s.mark).map((s) => s.text)).toEqual(['VPN', 'VPN']);
});
