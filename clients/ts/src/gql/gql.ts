/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment ClientAttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      id\n      label\n      rank\n      score\n      cited\n      available\n      snippet\n      documentTitle\n      documentId\n    }\n  }\n": typeof types.ClientAttemptFieldsFragmentDoc,
    "\n  fragment ClientPathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempt {\n      ...ClientAttemptFields\n    }\n  }\n": typeof types.ClientPathMessageFieldsFragmentDoc,
    "\n  mutation ClientAsk($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...ClientPathMessageFields\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n    }\n  }\n": typeof types.ClientAskDocument,
    "\n  query ClientConversationPath($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      id\n      title\n      status\n      version\n      updatedAt\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...ClientPathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n": typeof types.ClientConversationPathDocument,
    "\n  subscription ClientAttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        id\n        label\n        rank\n        score\n        cited\n        available\n        snippet\n        documentTitle\n        documentId\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n": typeof types.ClientAttemptEventsDocument,
    "\n  subscription ClientViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n      attemptId\n      attemptStatus\n      messageId\n    }\n  }\n": typeof types.ClientViewerEventsDocument,
    "\n  subscription ClientConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n      attemptId\n      attemptStatus\n    }\n  }\n": typeof types.ClientConversationEventsDocument,
};
const documents: Documents = {
    "\n  fragment ClientAttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      id\n      label\n      rank\n      score\n      cited\n      available\n      snippet\n      documentTitle\n      documentId\n    }\n  }\n": types.ClientAttemptFieldsFragmentDoc,
    "\n  fragment ClientPathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempt {\n      ...ClientAttemptFields\n    }\n  }\n": types.ClientPathMessageFieldsFragmentDoc,
    "\n  mutation ClientAsk($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...ClientPathMessageFields\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n    }\n  }\n": types.ClientAskDocument,
    "\n  query ClientConversationPath($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      id\n      title\n      status\n      version\n      updatedAt\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...ClientPathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n": types.ClientConversationPathDocument,
    "\n  subscription ClientAttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        id\n        label\n        rank\n        score\n        cited\n        available\n        snippet\n        documentTitle\n        documentId\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n": types.ClientAttemptEventsDocument,
    "\n  subscription ClientViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n      attemptId\n      attemptStatus\n      messageId\n    }\n  }\n": types.ClientViewerEventsDocument,
    "\n  subscription ClientConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n      attemptId\n      attemptStatus\n    }\n  }\n": types.ClientConversationEventsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClientAttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      id\n      label\n      rank\n      score\n      cited\n      available\n      snippet\n      documentTitle\n      documentId\n    }\n  }\n"): (typeof documents)["\n  fragment ClientAttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      id\n      label\n      rank\n      score\n      cited\n      available\n      snippet\n      documentTitle\n      documentId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClientPathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempt {\n      ...ClientAttemptFields\n    }\n  }\n"): (typeof documents)["\n  fragment ClientPathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempt {\n      ...ClientAttemptFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientAsk($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...ClientPathMessageFields\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation ClientAsk($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...ClientPathMessageFields\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientConversationPath($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      id\n      title\n      status\n      version\n      updatedAt\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...ClientPathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientConversationPath($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      id\n      title\n      status\n      version\n      updatedAt\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...ClientPathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClientAttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        id\n        label\n        rank\n        score\n        cited\n        available\n        snippet\n        documentTitle\n        documentId\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n"): (typeof documents)["\n  subscription ClientAttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        id\n        label\n        rank\n        score\n        cited\n        available\n        snippet\n        documentTitle\n        documentId\n      }\n      attempt {\n        ...ClientAttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClientViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n      attemptId\n      attemptStatus\n      messageId\n    }\n  }\n"): (typeof documents)["\n  subscription ClientViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n      attemptId\n      attemptStatus\n      messageId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClientConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n      attemptId\n      attemptStatus\n    }\n  }\n"): (typeof documents)["\n  subscription ClientConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n      attemptId\n      attemptStatus\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;