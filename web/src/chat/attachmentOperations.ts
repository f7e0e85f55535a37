// The GraphQL operations of the attachment list (AttachButton): the open
// conversation's attachments, and the viewer events that carry their
// status as it changes (docs/API.md, "Attachments").
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
  subscription AttachmentEvents {
    viewerEvents {
      kind
      conversationId
      attachmentId
      attachmentStatus
    }
  }
`);
