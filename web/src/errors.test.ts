// Unit tests of the error mapping: each API code the console explains, and
// the transport failures it meets.
import { expect, test } from 'vitest';
import { toUiError } from './errors';

const cases: [string, unknown, Partial<ReturnType<typeof toUiError>>][] = [
  [
    'busy with the running attempt',
    { errors: [{ message: 'busy', extensions: { code: 'CONVERSATION_BUSY', attemptId: 'a1' } }] },
    { kind: 'busy', attemptId: 'a1' },
  ],
  [
    'rate limited with retry-after',
    { errors: [{ message: 'slow down', extensions: { code: 'RATE_LIMITED', limit: 'askRate', retryAfterSeconds: 7 } }] },
    { kind: 'rateLimited', retryAfterSeconds: 7 },
  ],
  ['expired token over HTTP', { statusCode: 401, message: 'Response not successful' }, { kind: 'signIn' }],
  ['expired token on the WebSocket', { code: 4403, reason: 'Forbidden: token expired' }, { kind: 'signIn' }],
  ['unauthenticated code', { errors: [{ message: 'x', extensions: { code: 'UNAUTHENTICATED' } }] }, { kind: 'signIn' }],
  ['unavailable', { errors: [{ message: 'draining', extensions: { code: 'UNAVAILABLE' } }] }, { kind: 'unavailable' }],
  ['model unavailable', { errors: [{ message: 'down', extensions: { code: 'MODEL_UNAVAILABLE' } }] }, { kind: 'unavailable' }],
  ['network down', new TypeError('Failed to fetch'), { kind: 'unavailable' }],
  ['socket closed abnormally', { code: 1006, reason: '' }, { kind: 'unavailable' }],
  ['forbidden admin view', { errors: [{ message: 'no', extensions: { code: 'FORBIDDEN' } }] }, { kind: 'forbidden' }],
  [
    'internal with trace id',
    { errors: [{ message: 'internal error', extensions: { code: 'INTERNAL', traceId: 't1' } }] },
    { kind: 'internal', traceId: 't1' },
  ],
  ['bad input names the field', [{ message: 'long', extensions: { code: 'BAD_USER_INPUT', field: 'question' } }], { kind: 'badInput', field: 'question' }],
  [
    'rate limited names the limit',
    { errors: [{ message: 'slow down', extensions: { code: 'RATE_LIMITED', limit: 'askRate', retryAfterSeconds: 2 } }] },
    { kind: 'rateLimited', limit: 'askRate', retryAfterSeconds: 2 },
  ],
  [
    'settings conflict with the current version',
    { errors: [{ message: 'changed', extensions: { code: 'CONFLICT', currentVersion: 5, expectedVersion: 4 } }] },
    { kind: 'conflict', currentVersion: 5 },
  ],
  [
    'a nested settings field',
    { errors: [{ message: 'bad ratio', extensions: { code: 'BAD_USER_INPUT', field: 'budgetRatios.history' } }] },
    { kind: 'badInput', field: 'budgetRatios.history' },
  ],
  ['a proxy without a backend', { statusCode: 502, message: 'Bad Gateway' }, { kind: 'unavailable' }],
  ['a draining server over HTTP', { statusCode: 503, message: 'Service Unavailable' }, { kind: 'unavailable' }],
  ['unknown code', { errors: [{ message: '?', extensions: { code: 'SOMETHING_NEW' } }] }, { kind: 'internal', code: 'SOMETHING_NEW' }],
];

for (const [name, input, want] of cases) {
  test(name, () => {
    expect(toUiError(input)).toMatchObject(want);
  });
}
