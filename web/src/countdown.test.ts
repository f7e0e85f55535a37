// Unit tests of the RATE_LIMITED countdown: the deadline from
// retryAfterSeconds and the seconds shown as the clock moves.
import { expect, test } from 'vitest';
import { defaultRetryAfterSeconds, retryDeadline, secondsLeft } from './countdown';

test.each([
  ['the server says 3 s', 3, 1_000 + 3_000],
  ['zero means at once', 0, 1_000],
  ['missing means the default', undefined, 1_000 + defaultRetryAfterSeconds * 1000],
  ['a negative value means the default', -5, 1_000 + defaultRetryAfterSeconds * 1000],
  ['not a number means the default', Number.NaN, 1_000 + defaultRetryAfterSeconds * 1000],
])('retryDeadline: %s', (_, after, want) => {
  expect(retryDeadline(after, 1_000)).toBe(want);
});

test.each([
  ['the whole wait at the start', 0, 3],
  ['rounded up within a second', 1, 3],
  ['rounded up just before the next second', 999, 3],
  ['two left after one second', 1_000, 2],
  ['one left near the end', 2_999, 1],
  ['zero at the deadline', 3_000, 0],
  ['never negative after it', 10_000, 0],
])('secondsLeft: %s', (_, elapsed, want) => {
  expect(secondsLeft(3_000, elapsed)).toBe(want);
});
