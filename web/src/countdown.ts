// The RATE_LIMITED countdown: when the server says retryAfterSeconds, the
// console disables Send until that moment and shows the seconds left. Pure
// (the clock is a parameter), so it is unit-tested without timers; the
// hook useCountdown re-renders each second while one runs.
import { useEffect, useState } from 'react';

/** What is assumed when a RATE_LIMITED error carries no retry-after. */
export const defaultRetryAfterSeconds = 60;

/** The instant (ms since the epoch) after which asking may resume. */
export function retryDeadline(retryAfterSeconds: number | undefined, now: number): number {
  const s = retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0 ? retryAfterSeconds : defaultRetryAfterSeconds;
  return now + s * 1000;
}

/** Whole seconds left until deadline (rounded up), never negative. */
export function secondsLeft(deadline: number, now: number): number {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

/**
 * The seconds left until deadline, updated as time passes; 0 when there is
 * no deadline or it has passed (then the timer stops).
 */
export function useCountdown(deadline: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  const left = deadline === null ? 0 : secondsLeft(deadline, now);
  useEffect(() => {
    if (deadline === null) return;
    setNow(Date.now());
    const timer = setInterval(() => {
      const t = Date.now();
      setNow(t);
      if (t >= deadline) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [deadline]);
  return left;
}
