// The current branch as the conversation view holds it: the messages of
// Conversation.currentPath loaded so far, root side first, and the turns
// they make. Pure, so it is unit-tested without a server (path.test.ts).

/** One message of the loaded path. */
export interface PathEntry {
  id: string;
  role: string;
}

/** A question and the answer that follows it on the path (either may be missing at the loaded range's edges). */
export interface PathTurn {
  key: string;
  question: string | null;
  answer: string | null;
}

/** The loaded path and whether older messages remain before it. */
export interface LoadedPath {
  entries: PathEntry[];
  cursor: string | null;
  more: boolean;
}

/**
 * mergeLatest puts a freshly read latest page of the current path in place
 * of the loaded path. When the page's first message is already loaded, the
 * messages before it are its ancestors, the same on the new path, so they
 * are kept with their cursor (the reader's scroll-back survives a switch
 * below them); otherwise the page replaces everything. Applying the same
 * page twice gives the same result, so a BRANCH_SELECTED event and the
 * mutation's own response may both re-read in any order. When nothing
 * changed it returns cur itself, so that a re-read that finds nothing new
 * (the one on SUBSCRIBED, usually) renders nothing and moves no scroll.
 */
export function mergeLatest(cur: LoadedPath, page: PathEntry[], cursor: string | null, more: boolean): LoadedPath {
  let next: LoadedPath = { entries: page, cursor, more };
  if (page.length > 0 && more) {
    const at = cur.entries.findIndex((e) => e.id === page[0].id);
    if (at >= 0) next = { entries: [...cur.entries.slice(0, at), ...page], cursor: cur.cursor, more: cur.more };
  }
  return samePath(cur, next) ? cur : next;
}

/** samePath reports whether a and b hold the same messages and cursor. */
function samePath(a: LoadedPath, b: LoadedPath): boolean {
  return (
    a.cursor === b.cursor &&
    a.more === b.more &&
    a.entries.length === b.entries.length &&
    a.entries.every((e, i) => e.id === b.entries[i].id && e.role === b.entries[i].role)
  );
}

/** prependOlder adds an older page (before: cursor) in front of the loaded path. */
export function prependOlder(cur: LoadedPath, page: PathEntry[], cursor: string | null, more: boolean): LoadedPath {
  const have = new Set(cur.entries.map((e) => e.id));
  return { entries: [...page.filter((e) => !have.has(e.id)), ...cur.entries], cursor, more };
}

/** appendQuestion adds a question just asked at the end of the path (once). */
export function appendQuestion(cur: LoadedPath, id: string): LoadedPath {
  if (cur.entries.some((e) => e.id === id)) return cur;
  return { ...cur, entries: [...cur.entries, { id, role: 'USER' }] };
}

/**
 * turnsOf groups the path into turns: each USER message with the
 * ASSISTANT message after it. An answer whose question is not loaded (the
 * oldest page may start with one) is a turn of its own; SYSTEM messages
 * are not shown.
 */
export function turnsOf(entries: readonly PathEntry[]): PathTurn[] {
  const out: PathTurn[] = [];
  for (const e of entries) {
    if (e.role === 'USER') out.push({ key: e.id, question: e.id, answer: null });
    else if (e.role === 'ASSISTANT') {
      const last = out[out.length - 1];
      if (last && last.question && !last.answer) last.answer = e.id;
      else out.push({ key: e.id, question: null, answer: e.id });
    }
  }
  return out;
}

/** The sibling to move to from index by step (-1 or +1), or null at either end. */
export function siblingAt(ids: readonly string[], index: number, step: number): string | null {
  const i = index + step;
  return i >= 0 && i < ids.length ? ids[i] : null;
}
