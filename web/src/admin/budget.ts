// The token-budget picture of an attempt's context manifest: each prompt
// section's tokens against its limit and the whole prompt against the
// budget, as bar lengths in percent. Pure, so it is unit-tested.

/** Tokens by prompt section (PromptSectionTokens). */
export interface SectionTokens {
  system: number;
  question: number;
  evidence: number;
  history: number;
  summary: number;
  total: number;
}

/** One bar of the picture. */
export interface BudgetBar {
  section: keyof SectionTokens;
  used: number;
  limit: number;
  /** used as a percentage of the bar's scale (0..100). */
  usedPct: number;
  /** limit as a percentage of the scale (0..100). */
  limitPct: number;
  over: boolean;
}

const sections: (keyof SectionTokens)[] = ['system', 'summary', 'history', 'evidence', 'question', 'total'];

/**
 * Builds the bars on one scale, the largest of the budget, every limit and
 * every use, so bars compare. A section whose limit is 0 has no limit of
 * its own (it shares the budget), shown at the budget.
 */
export function budgetPicture(tokens: SectionTokens, limits: SectionTokens, budget: number): BudgetBar[] {
  const limitOf = (s: keyof SectionTokens) => (s === 'total' ? budget : limits[s] > 0 ? limits[s] : budget);
  const scale = Math.max(1, budget, ...sections.map((s) => Math.max(tokens[s], limitOf(s))));
  const pct = (n: number) => Math.round((n / scale) * 1000) / 10;
  return sections.map((s) => {
    const limit = limitOf(s);
    return { section: s, used: tokens[s], limit, usedPct: pct(tokens[s]), limitPct: pct(limit), over: tokens[s] > limit };
  });
}
