// The package's GraphQL operations. graphql-codegen reads them and generates
// their result and variable types into src/gql (npm run codegen).
import { graphql } from './gql';

export const AttemptFields = graphql(`
  fragment ClientAttemptFields on Attempt {
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
  }
`);

export const PathMessageFields = graphql(`
  fragment ClientPathMessageFields on Message {
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
    attempt {
      ...ClientAttemptFields
    }
  }
`);

export const AskMutation = graphql(`
  mutation ClientAsk($input: AskInput!) {
    ask(input: $input) {
      deduplicated
      userMessage {
        ...ClientPathMessageFields
      }
      attempt {
        ...ClientAttemptFields
      }
    }
  }
`);

export const ConversationPathQuery = graphql(`
  query ClientConversationPath($id: ID!, $last: Int!, $before: Cursor) {
    conversation(id: $id) {
      id
      title
      status
      version
      updatedAt
      currentLeafId
      currentPath(last: $last, before: $before) {
        edges {
          cursor
          node {
            ...ClientPathMessageFields
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

export const AttemptEventsSubscription = graphql(`
  subscription ClientAttemptEvents($attemptId: ID!, $afterSeq: Int) {
    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {
      kind
      seq
      text
      standaloneQuestion
      requiresHistory
      sources {
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
      attempt {
        ...ClientAttemptFields
      }
      failureCode
      failureMessage
    }
  }
`);

export const ViewerEventsSubscription = graphql(`
  subscription ClientViewerEvents {
    viewerEvents {
      kind
      conversationId
      attemptId
      attemptStatus
      messageId
    }
  }
`);

export const ConversationEventsSubscription = graphql(`
  subscription ClientConversationEvents($conversationId: ID!) {
    conversationEvents(conversationId: $conversationId) {
      kind
      conversationId
      messageId
      attemptId
      attemptStatus
    }
  }
`);
