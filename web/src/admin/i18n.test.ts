// Every admin string exists in both languages (same keys, same shape, no
// empty text), and so does every chat string.
import { expect, test } from 'vitest';
import { adminStrings } from './i18n';
import { strings } from '../i18n';

/** The paths of a strings object's leaves, with the leaf's kind. */
function shape(o: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(o).flatMap(([k, v]) => {
    const path = prefix + k;
    if (v && typeof v === 'object') return shape(v as Record<string, unknown>, `${path}.`);
    if (typeof v === 'string') expect(v.trim(), path).not.toBe('');
    return [`${path}:${typeof v}`];
  });
}

test.each([
  ['admin', adminStrings('en'), adminStrings('zh')],
  ['chat', strings('en'), strings('zh')],
])('the %s strings have the same keys in English and Chinese', (_, en, zh) => {
  expect(shape(zh as unknown as Record<string, unknown>).sort()).toEqual(shape(en as unknown as Record<string, unknown>).sort());
});

test('the Chinese admin strings are translated', () => {
  const en = adminStrings('en');
  const zh = adminStrings('zh');
  expect(zh.tabs.settings).not.toBe(en.tabs.settings);
  expect(zh.fields.historyStrategy).not.toBe(en.fields.historyStrategy);
  expect(zh.eventsCount(3)).toContain('3');
});
