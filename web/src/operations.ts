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

export const ConversationsQuery = graphql(`
  query Conversations($first: Int!, $after: Cursor) {
    conversations(first: $first, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) {
      edges {
        cursor
        node {
          ...ConversationFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
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

export const MessageFields = graphql(`
  fragment MessageFields on Message {
    id
    sequenceNo
    role
    content
    createdAt
    clientMessageId
    attempts {
      ...AttemptFields
    }
  }
`);

export const ConversationQuery = graphql(`
  query Conversation($id: ID!, $last: Int!, $before: Cursor) {
    conversation(id: $id) {
      ...ConversationFields
      messages(last: $last, before: $before, where: { role: USER }) {
        edges {
          cursor
          node {
            ...MessageFields
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

export const CreateConversationMutation = graphql(`
  mutation CreateConversation {
    createConversation {
      ...ConversationFields
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
        ...MessageFields
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

export const ViewerEventsSubscription = graphql(`
  subscription ViewerEvents {
    viewerEvents {
      kind
      conversationId
    }
  }
`);
