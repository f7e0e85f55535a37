// Unit tests of the token-budget picture.
import { expect, test } from 'vitest';
import { budgetPicture, type SectionTokens } from './budget';

const t = (o: Partial<SectionTokens>): SectionTokens => ({ system: 0, question: 0, evidence: 0, history: 0, summary: 0, total: 0, ...o });

test('sections against their limits on the budget scale', () => {
  const bars = budgetPicture(t({ system: 100, evidence: 600, history: 200, question: 20, total: 920 }), t({ system: 200, evidence: 800, history: 400, question: 100, summary: 300 }), 1000);
  const by = Object.fromEntries(bars.map((b) => [b.section, b]));
  expect(by.evidence).toMatchObject({ used: 600, limit: 800, usedPct: 60, limitPct: 80, over: false });
  expect(by.total).toMatchObject({ used: 920, limit: 1000, usedPct: 92, limitPct: 100, over: false });
  expect(bars.map((b) => b.section)).toEqual(['system', 'summary', 'history', 'evidence', 'question', 'total']);
});

test('a section over its limit is flagged and the scale grows to show it', () => {
  const bars = budgetPicture(t({ history: 1500, total: 1500 }), t({ history: 400 }), 1000);
  const history = bars.find((b) => b.section === 'history')!;
  expect(history).toMatchObject({ over: true, usedPct: 100 });
  expect(bars.find((b) => b.section === 'total')!.limitPct).toBeCloseTo(66.7, 1);
});

test('a section without its own limit shares the budget', () => {
  const bars = budgetPicture(t({ summary: 50 }), t({}), 500);
  expect(bars.find((b) => b.section === 'summary')).toMatchObject({ limit: 500, usedPct: 10 });
});

test('an empty manifest draws no division by zero', () => {
  for (const b of budgetPicture(t({}), t({}), 0)) {
    expect(Number.isFinite(b.usedPct)).toBe(true);
    expect(Number.isFinite(b.limitPct)).toBe(true);
  }
});
