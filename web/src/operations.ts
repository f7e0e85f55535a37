// Every GraphQL operation of the chat console. graphql-codegen reads them
// and generates their result and variable types into src/gql (no
// hand-written response types). The admin's are in src/admin/operations.ts.
import { graphql } from './gql';

export const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      tenantId
      userId
      roles
      groups
      isAdmin
      canCurateKnowledge
    }
  }
`);

export const ConversationFields = graphql(`
  fragment ConversationFields on Conversation {
    id
    title
    status
    version
    updatedAt
  }
`);

export const SourceFields = graphql(`
  fragment SourceFields on Source {
    id
    label
    rank
    score
    cited
    available
    snippet
    documentTitle
    documentId
    kind
    attachment {
      id
      name
    }
  }
`);

export const AttemptFields = graphql(`
  fragment AttemptFields on Attempt {
    id
    status
    answer
    checkpointSeq
    originalQuestion
    standaloneQuestion
    requiresHistory
    refused
    failureCode
    failureMessage
    retryOfId
    createdAt
    model
    sources {
      ...SourceFields
    }
    feedback {
      id
      rating
      reasonCodes
      comment
    }
  }
`);

// The fields of an attempt without its lists (sources, feedback): what a
// question's attempts carry on a page of the current path, so that a page
// of 50 messages stays within the query complexity limit. The attempt a
// turn shows is read whole (AttemptFields) from the answer message, the
// stream's end, or attempt(id).
export const AttemptCoreFields = graphql(`
  fragment AttemptCoreFields on Attempt {
    id
    status
    answer
    checkpointSeq
    originalQuestion
    standaloneQuestion
    requiresHistory
    refused
    failureCode
    failureMessage
    retryOfId
    createdAt
    model
  }
`);

// One message of the current branch (Conversation.currentPath): a question
// with its attempts (retries included), or an answer with the attempt that
// wrote it; and its siblings, for "‹ n / m ›".
export const PathMessageFields = graphql(`
  fragment PathMessageFields on Message {
    id
    role
    content
    parentId
    depth
    createdAt
    clientMessageId
    attemptId
    siblings {
      ids
      index
      count
    }
    attempts {
      ...AttemptCoreFields
    }
    attempt {
      ...AttemptFields
    }
  }
`);

export const ConversationQuery = graphql(`
  query Conversation($id: ID!, $last: Int!, $before: Cursor) {
    conversation(id: $id) {
      ...ConversationFields
      ...OrganiseFields
      currentLeafId
      currentPath(last: $last, before: $before) {
        edges {
          cursor
          node {
            ...PathMessageFields
          }
        }
        pageInfo {
          hasPreviousPage
          startCursor
        }
      }
    }
  }
`);

export const AttemptQuery = graphql(`
  query Attempt($id: ID!) {
    attempt(id: $id) {
      ...AttemptFields
    }
  }
`);

export const RenameConversationMutation = graphql(`
  mutation RenameConversation($id: ID!, $title: String!) {
    renameConversation(id: $id, title: $title) {
      ...ConversationFields
    }
  }
`);

export const ArchiveConversationMutation = graphql(`
  mutation ArchiveConversation($id: ID!) {
    archiveConversation(id: $id) {
      ...ConversationFields
    }
  }
`);

export const DeleteConversationMutation = graphql(`
  mutation DeleteConversation($id: ID!) {
    deleteConversation(id: $id) {
      ...ConversationFields
    }
  }
`);

export const RestoreConversationMutation = graphql(`
  mutation RestoreConversation($id: ID!) {
    restoreConversation(id: $id) {
      ...ConversationFields
    }
  }
`);

export const AskMutation = graphql(`
  mutation Ask($input: AskInput!) {
    ask(input: $input) {
      deduplicated
      userMessage {
        ...PathMessageFields
      }
      attempt {
        ...AttemptFields
      }
    }
  }
`);

export const RetryMutation = graphql(`
  mutation Retry($input: RetryAttemptInput!) {
    retryAttempt(input: $input) {
      attempt {
        ...AttemptFields
      }
    }
  }
`);

// An answer's staleness (docs/API.md, "Stale answers"): computed on read,
// so it is read on its own when a completed answer is shown, never as part
// of the path's pages.
export const AttemptStalenessQuery = graphql(`
  query AttemptStaleness($id: ID!) {
    attempt(id: $id) {
      id
      staleness {
        stale
        sources {
          change
          citedVersion
          currentVersion
          stillContainsCitedText
          source {
            ...SourceFields
          }
        }
      }
    }
  }
`);

export const ReaskMutation = graphql(`
  mutation Reask($attemptId: ID!, $clientRequestId: String, $modelProfileId: ID) {
    reaskAttempt(attemptId: $attemptId, clientRequestId: $clientRequestId, modelProfileId: $modelProfileId) {
      deduplicated
      userMessage {
        id
      }
      attempt {
        ...AttemptFields
      }
    }
  }
`);

export const EditMessageMutation = graphql(`
  mutation EditMessage($messageId: ID!, $question: String!, $clientMessageId: String!, $modelProfileId: ID) {
    editMessage(messageId: $messageId, question: $question, clientMessageId: $clientMessageId, modelProfileId: $modelProfileId) {
      deduplicated
      userMessage {
        id
      }
      attempt {
        ...AttemptFields
      }
    }
  }
`);

export const SelectBranchMutation = graphql(`
  mutation SelectBranch($conversationId: ID!, $messageId: ID!) {
    selectBranch(conversationId: $conversationId, messageId: $messageId) {
      id
      currentLeafId
    }
  }
`);

export const CancelMutation = graphql(`
  mutation Cancel($id: ID!) {
    cancelAttempt(id: $id) {
      ...AttemptFields
    }
  }
`);

export const FeedbackMutation = graphql(`
  mutation SubmitFeedback($input: SubmitFeedbackInput!) {
    submitFeedback(input: $input) {
      id
      rating
      reasonCodes
      comment
    }
  }
`);

export const AttemptEventsSubscription = graphql(`
  subscription AttemptEvents($attemptId: ID!, $afterSeq: Int) {
    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {
      kind
      seq
      text
      standaloneQuestion
      requiresHistory
      sources {
        ...SourceFields
      }
      attempt {
        ...AttemptFields
      }
      failureCode
      failureMessage
    }
  }
`);

// The open conversation's changes; the console follows BRANCH_SELECTED (a
// switch, edit or regenerate here or on another device) by reading the
// current path again, and SOURCES_CHANGED by reading the stale badges'
// staleness again.
export const ConversationEventsSubscription = graphql(`
  subscription ConversationEvents($conversationId: ID!) {
    conversationEvents(conversationId: $conversationId) {
      kind
      conversationId
      messageId
    }
  }
`);

export const ViewerEventsSubscription = graphql(`
  subscription ViewerEvents {
    viewerEvents {
      kind
      conversationId
    }
  }
`);

export const AvailableModelsQuery = graphql(`
  query AvailableModels {
    availableModels {
      id
      name
      model
    }
  }
`);
