/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type AskInput = {
  /**
   * Attachments of this conversation the question is asked with: each must be
   * the viewer's and READY (docs/API.md, "Attachments"). The answer's
   * evidence always includes the best chunk of each. An unknown, deleted or
   * foreign id, or one of another conversation, is NOT_FOUND; one not yet
   * READY is BAD_USER_INPUT (extensions.field attachmentIds, reason
   * ATTACHMENT_NOT_READY). At most 20.
   */
  attachmentIds?: Array<string> | null | undefined;
  /**
   * The client's idempotency key for this question: asking again with the same
   * key returns the original message and attempt (deduplicated: true); the same
   * key with a different question is IDEMPOTENCY_MISMATCH.
   */
  clientMessageId: string;
  conversationId: string;
  /** This answer's sampling parameters, over the conversation's. */
  modelParameters?: ModelParametersInput | null | undefined;
  /** This answer's model profile, over the conversation's (docs/API.md, "Model profiles"). */
  modelProfileId?: string | null | undefined;
  /**
   * The message the question follows (docs/API.md, "Message trees"): an
   * ASSISTANT answer, or a USER question left unanswered, of this
   * conversation. Null follows the conversation's current branch
   * (Conversation.currentLeafId). The question becomes the current branch's
   * leaf either way.
   */
  parentMessageId?: string | null | undefined;
  question: string;
};

export type AttemptEventKind =
  /** The attempt completed; carries the final attempt. */
  | 'COMPLETED'
  /** A piece of the answer: text plus seq, the answer's length in code points after it. */
  | 'DELTA'
  /** The attempt failed; carries the failure code and the final attempt. */
  | 'FAILED'
  /** The evidence given to the model, in label order. */
  | 'SOURCES'
  /** The attempt started; carries the standalone question (the rewrite). */
  | 'STARTED';

/** AttemptStatus is enum for the field status */
export type AttemptStatus =
  | 'COMPLETED'
  | 'FAILED'
  | 'PENDING';

export type ConversationEventKind =
  /**
   * An attachment of the conversation changed state (attachmentId,
   * attachmentStatus), also in a temporary chat, which viewerEvents never
   * mentions. Only subscribers who may read the attachment (its owner)
   * receive it.
   */
  | 'ATTACHMENT_UPDATED'
  | 'ATTEMPT_UPDATED'
  /**
   * The current branch changed (selectBranch, editMessage, retryAttempt or an
   * ask on another branch): messageId is the new current leaf.
   */
  | 'BRANCH_SELECTED'
  /**
   * The conversation was deleted. This is the stream's last event; its
   * conversation field is null (nothing of it is visible any more).
   */
  | 'CONVERSATION_DELETED'
  | 'CONVERSATION_UPDATED'
  | 'MESSAGE_CREATED'
  /**
   * Documents cited by answers of the conversation changed (re-ingested with
   * other content), as the viewer may read them now: changedAttemptIds
   * (at most 50) and changedAttemptCount. At most one per conversation per
   * document-change broadcast (one per tenant per second). Refetch the
   * attempts' staleness.
   */
  | 'SOURCES_CHANGED'
  /**
   * The stream's first event, sent once the server follows the conversation:
   * every change made after the client receives it reaches the stream, on
   * every instance. conversation is the conversation as it is then.
   */
  | 'SUBSCRIBED';

/** ConversationStatus is enum for the field status */
export type ConversationStatus =
  | 'ACTIVE'
  | 'ARCHIVED'
  | 'DELETED'
  | 'EXPIRED';

/** MessageRole is enum for the field role */
export type MessageRole =
  | 'ASSISTANT'
  | 'SYSTEM'
  | 'USER';

/**
 * Sampling parameters of a model call. Null fields are not chosen here: the
 * next level of the precedence decides them (docs/API.md, "Model profiles").
 * A value outside the profile's bounds is BAD_USER_INPUT with
 * extensions.field naming it (e.g. "modelParameters.temperature"); nothing
 * is clamped.
 */
export type ModelParametersInput = {
  maxAnswerTokens?: number | null | undefined;
  temperature?: number | null | undefined;
  topP?: number | null | undefined;
};

export type ViewerEventKind =
  /**
   * An attachment of the conversation changed state (attachmentId,
   * attachmentStatus): UPLOADED, SCANNING, CHUNKING, READY or FAILED.
   */
  | 'ATTACHMENT_UPDATED'
  /**
   * An attempt of the conversation became PENDING, COMPLETED or FAILED
   * (attemptStatus).
   */
  | 'ATTEMPT_UPDATED'
  /**
   * The conversation's current branch changed (on this or another device):
   * messageId is the new current leaf.
   */
  | 'BRANCH_SELECTED'
  | 'CONVERSATION_ARCHIVED'
  | 'CONVERSATION_CREATED'
  /** Deleted, by its owner or by a tenant admin. Its conversation field is null. */
  | 'CONVERSATION_DELETED'
  | 'CONVERSATION_RESTORED'
  /** Renamed by the user, titled after its first answer, or its summary changed. */
  | 'CONVERSATION_UPDATED'
  /**
   * Documents cited by answers of this conversation of the viewer changed
   * (re-ingested with other content), as the viewer may read them now:
   * changedAttemptIds (at most 50) and changedAttemptCount. At most one per
   * conversation per document-change broadcast (one per tenant per second).
   */
  | 'SOURCES_CHANGED'
  /**
   * The stream's first event, sent once the server follows the viewer's
   * conversations: every change made after the client receives it reaches the
   * stream, on every instance. It is about no conversation: conversationId is
   * the nil UUID (00000000-0000-0000-0000-000000000000) and conversation is
   * null.
   */
  | 'SUBSCRIBED';

export type ClientAttemptFieldsFragment = { id: string, status: AttemptStatus, answer: string, checkpointSeq: number, originalQuestion: string, standaloneQuestion: string | null, requiresHistory: boolean, refused: boolean, failureCode: string | null, failureMessage: string | null, retryOfId: string | null, createdAt: string, model: string | null, sources: Array<{ id: string, label: string, rank: number, score: number, cited: boolean, available: boolean, snippet: string | null, documentTitle: string | null, documentId: string | null }> | null };

export type ClientPathMessageFieldsFragment = { id: string, role: MessageRole, content: string, parentId: string | null, depth: number, createdAt: string, clientMessageId: string | null, attemptId: string | null, siblings: { ids: Array<string>, index: number, count: number }, attempt: { id: string, status: AttemptStatus, answer: string, checkpointSeq: number, originalQuestion: string, standaloneQuestion: string | null, requiresHistory: boolean, refused: boolean, failureCode: string | null, failureMessage: string | null, retryOfId: string | null, createdAt: string, model: string | null, sources: Array<{ id: string, label: string, rank: number, score: number, cited: boolean, available: boolean, snippet: string | null, documentTitle: string | null, documentId: string | null }> | null } | null };

export type ClientAskMutationVariables = Exact<{
  input: AskInput;
}>;


export type ClientAskMutation = { ask: { deduplicated: boolean, userMessage: { id: string, role: MessageRole, content: string, parentId: string | null, depth: number, createdAt: string, clientMessageId: string | null, attemptId: string | null, siblings: { ids: Array<string>, index: number, count: number }, attempt: { id: string, status: AttemptStatus, answer: string, checkpointSeq: number, originalQuestion: string, standaloneQuestion: string | null, requiresHistory: boolean, refused: boolean, failureCode: string | null, failureMessage: string | null, retryOfId: string | null, createdAt: string, model: string | null, sources: Array<{ id: string, label: string, rank: number, score: number, cited: boolean, available: boolean, snippet: string | null, documentTitle: string | null, documentId: string | null }> | null } | null }, attempt: { id: string, status: AttemptStatus, answer: string, checkpointSeq: number, originalQuestion: string, standaloneQuestion: string | null, requiresHistory: boolean, refused: boolean, failureCode: string | null, failureMessage: string | null, retryOfId: string | null, createdAt: string, model: string | null, sources: Array<{ id: string, label: string, rank: number, score: number, cited: boolean, available: boolean, snippet: string | null, documentTitle: string | null, documentId: string | null }> | null } } };

export type ClientConversationPathQueryVariables = Exact<{
  id: string;
  last: number;
  before?: string | null | undefined;
}>;


export type ClientConversationPathQuery = { conversation: { id: string, title: string, status: ConversationStatus, version: number, updatedAt: string, currentLeafId: string | null, currentPath: { edges: Array<{ cursor: string, node: { id: string, role: MessageRole, content: string, parentId: string | null, depth: number, createdAt: string, clientMessageId: string | null, attemptId: string | null, siblings: { ids: Array<string>, index: number, count: number }, attempt: { id: string, status: AttemptStatus, answer: string, checkpointSeq: number, originalQuestion: string, standaloneQuestion: string | null, requiresHistory: boolean, refused: boolean, failureCode: string | null, failureMessage: string | null, retryOfId: string | null, createdAt: string, model: string | null, sources: Array<{ id: string, label: string, rank: number, score: number, cited: boolean, available: boolean, snippet: string | null, documentTitle: string | null, documentId: string | null }> | null } | null } | null } | null> | null, pageInfo: { hasPreviousPage: boolean, startCursor: string | null } } } };

export type ClientAttemptEventsSubscriptionVariables = Exact<{
  attemptId: string;
  afterSeq?: number | null | undefined;
}>;


export type ClientAttemptEventsSubscription = { attemptEvents: { kind: AttemptEventKind, seq: number, text: string | null, standaloneQuestion: string | null, requiresHistory: boolean | null, failureCode: string | null, failureMessage: string | null, sources: Array<{ id: string, label: string, rank: number, score: number, cited: boolean, available: boolean, snippet: string | null, documentTitle: string | null, documentId: string | null }> | null, attempt: { id: string, status: AttemptStatus, answer: string, checkpointSeq: number, originalQuestion: string, standaloneQuestion: string | null, requiresHistory: boolean, refused: boolean, failureCode: string | null, failureMessage: string | null, retryOfId: string | null, createdAt: string, model: string | null, sources: Array<{ id: string, label: string, rank: number, score: number, cited: boolean, available: boolean, snippet: string | null, documentTitle: string | null, documentId: string | null }> | null } | null } };

export type ClientViewerEventsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ClientViewerEventsSubscription = { viewerEvents: { kind: ViewerEventKind, conversationId: string, attemptId: string | null, attemptStatus: AttemptStatus | null, messageId: string | null } };

export type ClientConversationEventsSubscriptionVariables = Exact<{
  conversationId: string;
}>;


export type ClientConversationEventsSubscription = { conversationEvents: { kind: ConversationEventKind, conversationId: string, messageId: string | null, attemptId: string | null, attemptStatus: AttemptStatus | null } };

export const ClientAttemptFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientAttemptFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Attempt"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"answer"}},{"kind":"Field","name":{"kind":"Name","value":"checkpointSeq"}},{"kind":"Field","name":{"kind":"Name","value":"originalQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"standaloneQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"requiresHistory"}},{"kind":"Field","name":{"kind":"Name","value":"refused"}},{"kind":"Field","name":{"kind":"Name","value":"failureCode"}},{"kind":"Field","name":{"kind":"Name","value":"failureMessage"}},{"kind":"Field","name":{"kind":"Name","value":"retryOfId"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"sources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"cited"}},{"kind":"Field","name":{"kind":"Name","value":"available"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"documentTitle"}},{"kind":"Field","name":{"kind":"Name","value":"documentId"}}]}}]}}]} as unknown as DocumentNode<ClientAttemptFieldsFragment, unknown>;
export const ClientPathMessageFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientPathMessageFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Message"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"clientMessageId"}},{"kind":"Field","name":{"kind":"Name","value":"attemptId"}},{"kind":"Field","name":{"kind":"Name","value":"siblings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"ids"}},{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"attempt"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientAttemptFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientAttemptFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Attempt"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"answer"}},{"kind":"Field","name":{"kind":"Name","value":"checkpointSeq"}},{"kind":"Field","name":{"kind":"Name","value":"originalQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"standaloneQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"requiresHistory"}},{"kind":"Field","name":{"kind":"Name","value":"refused"}},{"kind":"Field","name":{"kind":"Name","value":"failureCode"}},{"kind":"Field","name":{"kind":"Name","value":"failureMessage"}},{"kind":"Field","name":{"kind":"Name","value":"retryOfId"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"sources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"cited"}},{"kind":"Field","name":{"kind":"Name","value":"available"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"documentTitle"}},{"kind":"Field","name":{"kind":"Name","value":"documentId"}}]}}]}}]} as unknown as DocumentNode<ClientPathMessageFieldsFragment, unknown>;
export const ClientAskDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ClientAsk"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"AskInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"ask"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deduplicated"}},{"kind":"Field","name":{"kind":"Name","value":"userMessage"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientPathMessageFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"attempt"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientAttemptFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientAttemptFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Attempt"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"answer"}},{"kind":"Field","name":{"kind":"Name","value":"checkpointSeq"}},{"kind":"Field","name":{"kind":"Name","value":"originalQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"standaloneQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"requiresHistory"}},{"kind":"Field","name":{"kind":"Name","value":"refused"}},{"kind":"Field","name":{"kind":"Name","value":"failureCode"}},{"kind":"Field","name":{"kind":"Name","value":"failureMessage"}},{"kind":"Field","name":{"kind":"Name","value":"retryOfId"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"sources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"cited"}},{"kind":"Field","name":{"kind":"Name","value":"available"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"documentTitle"}},{"kind":"Field","name":{"kind":"Name","value":"documentId"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientPathMessageFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Message"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"clientMessageId"}},{"kind":"Field","name":{"kind":"Name","value":"attemptId"}},{"kind":"Field","name":{"kind":"Name","value":"siblings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"ids"}},{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"attempt"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientAttemptFields"}}]}}]}}]} as unknown as DocumentNode<ClientAskMutation, ClientAskMutationVariables>;
export const ClientConversationPathDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ClientConversationPath"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"last"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"before"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Cursor"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"conversation"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"currentLeafId"}},{"kind":"Field","name":{"kind":"Name","value":"currentPath"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"last"},"value":{"kind":"Variable","name":{"kind":"Name","value":"last"}}},{"kind":"Argument","name":{"kind":"Name","value":"before"},"value":{"kind":"Variable","name":{"kind":"Name","value":"before"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientPathMessageFields"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasPreviousPage"}},{"kind":"Field","name":{"kind":"Name","value":"startCursor"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientAttemptFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Attempt"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"answer"}},{"kind":"Field","name":{"kind":"Name","value":"checkpointSeq"}},{"kind":"Field","name":{"kind":"Name","value":"originalQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"standaloneQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"requiresHistory"}},{"kind":"Field","name":{"kind":"Name","value":"refused"}},{"kind":"Field","name":{"kind":"Name","value":"failureCode"}},{"kind":"Field","name":{"kind":"Name","value":"failureMessage"}},{"kind":"Field","name":{"kind":"Name","value":"retryOfId"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"sources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"cited"}},{"kind":"Field","name":{"kind":"Name","value":"available"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"documentTitle"}},{"kind":"Field","name":{"kind":"Name","value":"documentId"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientPathMessageFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Message"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"parentId"}},{"kind":"Field","name":{"kind":"Name","value":"depth"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"clientMessageId"}},{"kind":"Field","name":{"kind":"Name","value":"attemptId"}},{"kind":"Field","name":{"kind":"Name","value":"siblings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"ids"}},{"kind":"Field","name":{"kind":"Name","value":"index"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"attempt"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientAttemptFields"}}]}}]}}]} as unknown as DocumentNode<ClientConversationPathQuery, ClientConversationPathQueryVariables>;
export const ClientAttemptEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ClientAttemptEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"attemptId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"afterSeq"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"attemptEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"attemptId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"attemptId"}}},{"kind":"Argument","name":{"kind":"Name","value":"afterSeq"},"value":{"kind":"Variable","name":{"kind":"Name","value":"afterSeq"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"standaloneQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"requiresHistory"}},{"kind":"Field","name":{"kind":"Name","value":"sources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"cited"}},{"kind":"Field","name":{"kind":"Name","value":"available"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"documentTitle"}},{"kind":"Field","name":{"kind":"Name","value":"documentId"}}]}},{"kind":"Field","name":{"kind":"Name","value":"attempt"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"ClientAttemptFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"failureCode"}},{"kind":"Field","name":{"kind":"Name","value":"failureMessage"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"ClientAttemptFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Attempt"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"answer"}},{"kind":"Field","name":{"kind":"Name","value":"checkpointSeq"}},{"kind":"Field","name":{"kind":"Name","value":"originalQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"standaloneQuestion"}},{"kind":"Field","name":{"kind":"Name","value":"requiresHistory"}},{"kind":"Field","name":{"kind":"Name","value":"refused"}},{"kind":"Field","name":{"kind":"Name","value":"failureCode"}},{"kind":"Field","name":{"kind":"Name","value":"failureMessage"}},{"kind":"Field","name":{"kind":"Name","value":"retryOfId"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"sources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"cited"}},{"kind":"Field","name":{"kind":"Name","value":"available"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"documentTitle"}},{"kind":"Field","name":{"kind":"Name","value":"documentId"}}]}}]}}]} as unknown as DocumentNode<ClientAttemptEventsSubscription, ClientAttemptEventsSubscriptionVariables>;
export const ClientViewerEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ClientViewerEvents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewerEvents"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"conversationId"}},{"kind":"Field","name":{"kind":"Name","value":"attemptId"}},{"kind":"Field","name":{"kind":"Name","value":"attemptStatus"}},{"kind":"Field","name":{"kind":"Name","value":"messageId"}}]}}]}}]} as unknown as DocumentNode<ClientViewerEventsSubscription, ClientViewerEventsSubscriptionVariables>;
export const ClientConversationEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"ClientConversationEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"conversationId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"conversationEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"conversationId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"conversationId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"conversationId"}},{"kind":"Field","name":{"kind":"Name","value":"messageId"}},{"kind":"Field","name":{"kind":"Name","value":"attemptId"}},{"kind":"Field","name":{"kind":"Name","value":"attemptStatus"}}]}}]}}]} as unknown as DocumentNode<ClientConversationEventsSubscription, ClientConversationEventsSubscriptionVariables>;