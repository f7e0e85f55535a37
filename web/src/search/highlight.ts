// Splits a search snippet into plain and highlighted segments from its
// highlight offsets (UTF-16 code units, as JavaScript strings count), so
// that the results list renders <mark> elements without innerHTML.

/** One highlight of a snippet: [start, end) in UTF-16 code units. */
export interface Highlight {
  start: number;
  end: number;
}

/** One run of a snippet's text, highlighted or not. */
export interface Segment {
  text: string;
  mark: boolean;
}

/**
 * Returns the snippet as segments in order. Highlights are clamped to the
 * text, empty ones dropped, overlapping and touching ones merged, and none
 * splits a surrogate pair.
 */
export function segments(text: string, highlights: readonly Highlight[]): Segment[] {
  const ranges = highlights
    .map((h) => ({ start: snap(text, clamp(h.start, text.length)), end: snap(text, clamp(h.end, text.length)) }))
    .filter((h) => h.end > h.start)
    .sort((a, b) => a.start - b.start);
  const merged: Highlight[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  const out: Segment[] = [];
  let at = 0;
  for (const r of merged) {
    if (r.start > at) out.push({ text: text.slice(at, r.start), mark: false });
    out.push({ text: text.slice(r.start, r.end), mark: true });
    at = r.end;
  }
  if (at < text.length || out.length === 0) out.push({ text: text.slice(at), mark: false });
  return out;
}

function clamp(n: number, max: number): number {
  return Number.isFinite(n) ? Math.min(Math.max(0, Math.trunc(n)), max) : 0;
}

// snap moves an offset inside a surrogate pair back to the pair's start.
function snap(text: string, i: number): number {
  if (i > 0 && i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) {
      const p = text.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) return i - 1;
    }
  }
  return i;
}
