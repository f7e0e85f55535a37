// Unit tests of tag colours.
import { expect, test } from 'vitest';
import { tagColor, textOn } from './tagcolor';

test('tagColor is stable and a #RRGGBB colour', () => {
  expect(tagColor('vpn')).toBe(tagColor('vpn'));
  expect(tagColor('网络')).toMatch(/^#[0-9a-f]{6}$/);
});

test.each([
  ['light', '#fde68a', '#000'],
  ['dark', '#1e3a8a', '#fff'],
  ['short form', '#fff', '#000'],
  ['short dark', '#000', '#fff'],
  ['not a colour', 'red', '#000'],
])('textOn: %s', (_, c, want) => {
  expect(textOn(c)).toBe(want);
});
