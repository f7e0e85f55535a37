// Which sources of an answer to show first: the chunks the answer cites
// ([C1] labels, or the server's Source.cited) in citation order, then the
// retrieved chunks it did not cite, which the panel folds under "more
// sources". Pure, so it is unit-tested.

/** The fields the split reads. */
export interface SourceLike {
  label: string;
  rank: number;
  cited: boolean;
}

/** The labels cited in an answer, in order of first citation. */
export function citedLabels(answer: string): string[] {
  const out: string[] = [];
  for (const m of answer.matchAll(/\[(C\d+)\]/g)) if (!out.includes(m[1])) out.push(m[1]);
  return out;
}

/**
 * Splits sources into the cited ones (first citation first) and the
 * uncited ones (by retrieval rank). While an answer streams the
 * citations are not known yet: with known false, every source is shown.
 */
export function splitSources<S extends SourceLike>(sources: readonly S[], answer: string, known = true): { cited: S[]; more: S[] } {
  const byRank = [...sources].sort((a, b) => a.rank - b.rank);
  if (!known) return { cited: byRank, more: [] };
  const order = citedLabels(answer);
  const isCited = (s: S) => s.cited || order.includes(s.label);
  const pos = (s: S) => {
    const i = order.indexOf(s.label);
    return i < 0 ? order.length : i;
  };
  const cited = byRank.filter(isCited).sort((a, b) => pos(a) - pos(b) || a.rank - b.rank);
  const more = byRank.filter((s) => !isCited(s));
  return { cited, more };
}
