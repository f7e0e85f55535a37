// Date helpers for the admin filters: periods as RFC 3339 instants.

/** [from, to) covering the last `days` days up to now (to is tomorrow's start, UTC). */
export function lastDays(days: number, now = new Date()): { from: string; to: string } {
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const from = new Date(to.getTime() - days * 86_400_000);
  return { from: from.toISOString(), to: to.toISOString() };
}

/** A date input's value (YYYY-MM-DD) as the instant of that UTC day's start. */
export function dayStart(value: string): string | null {
  return value ? `${value}T00:00:00Z` : null;
}
