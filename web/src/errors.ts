// Maps what the API and the transports report to what the console tells the
// user (docs/API.md, "Errors"). Pure: it reads error shapes only, so it is
// unit-tested without a server.

/** One problem the UI knows how to explain. */
export type UiErrorKind =
  | 'busy' // CONVERSATION_BUSY: an answer is being generated
  | 'rateLimited' // RATE_LIMITED: wait retryAfterSeconds
  | 'signIn' // UNAUTHENTICATED (an expired token): sign in again, keep the draft
  | 'forbidden' // FORBIDDEN: the role does not allow it
  | 'notFound'
  | 'badInput'
  | 'archived'
  | 'expired'
  | 'conflict'
  | 'unavailable' // UNAVAILABLE, MODEL_UNAVAILABLE, network down
  | 'internal';

/** The console's reading of an error. */
export interface UiError {
  kind: UiErrorKind;
  code: string;
  message: string;
  /** RATE_LIMITED: seconds to wait before asking again. */
  retryAfterSeconds?: number;
  /** CONVERSATION_BUSY: the attempt being generated. */
  attemptId?: string;
  /** INTERNAL: the trace id to quote to an operator. */
  traceId?: string;
  /** BAD_USER_INPUT: the input field at fault. */
  field?: string;
  /** CONFLICT: the version the object is at now. */
  currentVersion?: number;
  /** RATE_LIMITED: which limit (askRate, subscriptionsPerConnection). */
  limit?: string;
}

interface GraphQLErrorLike {
  message?: string;
  extensions?: Record<string, unknown> | null;
}

const kinds: Record<string, UiErrorKind> = {
  CONVERSATION_BUSY: 'busy',
  RATE_LIMITED: 'rateLimited',
  UNAUTHENTICATED: 'signIn',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'notFound',
  BAD_USER_INPUT: 'badInput',
  IDEMPOTENCY_MISMATCH: 'badInput',
  GRAPHQL_VALIDATION_FAILED: 'internal',
  GRAPHQL_PARSE_FAILED: 'internal',
  CONVERSATION_ARCHIVED: 'archived',
  CONVERSATION_EXPIRED: 'expired',
  CONFLICT: 'conflict',
  UNAVAILABLE: 'unavailable',
  MODEL_UNAVAILABLE: 'unavailable',
  INTERNAL: 'internal',
};

/** Reads a GraphQL error (from a result's errors or a subscription). */
export function fromGraphQLError(e: GraphQLErrorLike): UiError {
  const ext = e.extensions ?? {};
  const code = typeof ext.code === 'string' ? ext.code : 'INTERNAL';
  const out: UiError = { kind: kinds[code] ?? 'internal', code, message: e.message ?? code };
  if (typeof ext.retryAfterSeconds === 'number') out.retryAfterSeconds = ext.retryAfterSeconds;
  if (typeof ext.attemptId === 'string') out.attemptId = ext.attemptId;
  if (typeof ext.traceId === 'string') out.traceId = ext.traceId;
  if (typeof ext.field === 'string') out.field = ext.field;
  if (typeof ext.currentVersion === 'number') out.currentVersion = ext.currentVersion;
  if (typeof ext.limit === 'string') out.limit = ext.limit;
  return out;
}

/**
 * Reads anything thrown by Apollo Client or graphql-ws: GraphQL errors
 * (the first one decides), an HTTP 401 (an expired or forged token), a
 * WebSocket closed with 4403 (refused token), or a network failure.
 */
export function toUiError(err: unknown): UiError {
  if (err && typeof err === 'object') {
    const o = err as Record<string, unknown>;
    const errors = (o.errors ?? (o.graphQLErrors as unknown)) as GraphQLErrorLike[] | undefined;
    if (Array.isArray(errors) && errors.length > 0) return fromGraphQLError(errors[0]);
    if (Array.isArray(err) && err.length > 0) return fromGraphQLError(err[0] as GraphQLErrorLike);
    if (typeof o.statusCode === 'number') {
      if (o.statusCode === 401) return { kind: 'signIn', code: 'UNAUTHENTICATED', message: String(o.message ?? 'unauthenticated') };
      if (o.statusCode >= 502 && o.statusCode <= 504) return { kind: 'unavailable', code: 'UNAVAILABLE', message: String(o.message ?? 'unavailable') };
    }
    // A CloseEvent from graphql-ws.
    if (typeof o.code === 'number' && typeof o.reason === 'string') {
      if (o.code === 4403) return { kind: 'signIn', code: 'UNAUTHENTICATED', message: o.reason };
      return { kind: 'unavailable', code: 'UNAVAILABLE', message: o.reason || `connection closed (${o.code})` };
    }
    if ('extensions' in o && o.extensions) return fromGraphQLError(o as GraphQLErrorLike);
    if (typeof o.message === 'string' && /fetch|network|socket/i.test(o.message)) {
      return { kind: 'unavailable', code: 'UNAVAILABLE', message: o.message };
    }
    if (typeof o.message === 'string') return { kind: 'internal', code: 'INTERNAL', message: o.message };
  }
  return { kind: 'internal', code: 'INTERNAL', message: String(err) };
}
