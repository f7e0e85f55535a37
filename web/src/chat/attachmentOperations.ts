// The GraphQL operations of the attachment list (AttachButton): the open
// conversation's attachments, and the conversation's events that carry
// their status as it changes, in temporary chats too (docs/API.md,
// "Attachments").
import { graphql } from '../gql';

export const ConversationAttachmentsQuery = graphql(`
  query ConversationAttachments($id: ID!) {
    conversation(id: $id) {
      id
      attachments {
        id
        name
        status
        failureCode
      }
    }
  }
`);

export const AttachmentEventsSubscription = graphql(`
  subscription AttachmentEvents($conversationId: ID!) {
    conversationEvents(conversationId: $conversationId) {
      kind
      attachmentId
      attachmentStatus
    }
  }
`);
