// @ragchat/client: a typed client of ragchat's GraphQL API (docs/API.md,
// "TypeScript client"). React hooks are in @ragchat/client/react.
export { createRagchatClient, RagchatError } from './client';
export type { RagchatClient, RagchatClientOptions, RagchatGraphQLError, TokenGetter } from './client';
export { streamAttempt } from './stream';
export { followEvents, SUBSCRIBED } from './events';
export type { FollowEventsHandlers } from './events';
export type { AttemptEvent, AttemptStream, AttemptStreamState, StreamAttemptOptions } from './stream';
export { applyAttemptEvent, applyAttemptEvents, codePointLength, initialAttemptState, SeqGapError } from './merge';
export type { AttemptEventLike, AttemptState } from './merge';
export * from './operations';
export type * from './gql/graphql';
