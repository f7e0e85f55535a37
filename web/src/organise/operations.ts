// The GraphQL operations of organising conversations (pins, folders, tags),
// temporary chats and export (docs/API.md, "Organising conversations",
// "Temporary chats", "Export and import"). graphql-codegen types them into
// src/gql.
import { graphql } from '../gql';

export const OrganiseFields = graphql(`
  fragment OrganiseFields on Conversation {
    id
    version
    pinned
    folderId
    temporary
    temporaryExpiresAt
    tags {
      id
      name
      color
    }
  }
`);

export const SidebarQuery = graphql(`
  query Sidebar($first: Int!, $after: Cursor) {
    pinned: conversations(first: 50, where: { pinned: true }, orderBy: { field: UPDATED_AT, direction: DESC }) {
      edges {
        node {
          ...ConversationFields
          ...OrganiseFields
        }
      }
    }
    conversations(first: $first, after: $after, where: { pinned: false }, orderBy: { field: UPDATED_AT, direction: DESC }) {
      edges {
        cursor
        node {
          ...ConversationFields
          ...OrganiseFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
    folders {
      id
      name
      parentId
      position
    }
  }
`);

export const TagsQuery = graphql(`
  query Tags {
    tags {
      id
      name
      color
    }
  }
`);

export const ConversationOrganiseQuery = graphql(`
  query ConversationOrganise($id: ID!) {
    conversation(id: $id) {
      ...OrganiseFields
    }
  }
`);

export const PinConversationMutation = graphql(`
  mutation PinConversation($id: ID!) {
    pinConversation(id: $id) {
      ...ConversationFields
      ...OrganiseFields
    }
  }
`);

export const UnpinConversationMutation = graphql(`
  mutation UnpinConversation($id: ID!) {
    unpinConversation(id: $id) {
      ...ConversationFields
      ...OrganiseFields
    }
  }
`);

export const CreateFolderMutation = graphql(`
  mutation CreateFolder($input: CreateFolderInput!) {
    createFolder(input: $input) {
      id
      name
      parentId
      position
    }
  }
`);

export const RenameFolderMutation = graphql(`
  mutation RenameFolder($id: ID!, $name: String!) {
    updateFolder(id: $id, input: { name: $name }) {
      id
      name
      parentId
      position
    }
  }
`);

export const DeleteFolderMutation = graphql(`
  mutation DeleteFolder($id: ID!) {
    deleteFolder(id: $id) {
      deletedFolderId
    }
  }
`);

export const MoveToFolderMutation = graphql(`
  mutation MoveToFolder($conversationId: ID!, $folderId: ID) {
    moveConversationToFolder(conversationId: $conversationId, folderId: $folderId) {
      ...ConversationFields
      ...OrganiseFields
    }
  }
`);

export const CreateTagMutation = graphql(`
  mutation CreateTag($input: CreateTagInput!) {
    createTag(input: $input) {
      id
      name
      color
    }
  }
`);

export const AddTagsMutation = graphql(`
  mutation AddTags($conversationId: ID!, $tagIds: [ID!]!) {
    addConversationTags(conversationId: $conversationId, tagIds: $tagIds) {
      ...OrganiseFields
    }
  }
`);

export const RemoveTagsMutation = graphql(`
  mutation RemoveTags($conversationId: ID!, $tagIds: [ID!]!) {
    removeConversationTags(conversationId: $conversationId, tagIds: $tagIds) {
      ...OrganiseFields
    }
  }
`);

export const CreateTemporaryMutation = graphql(`
  mutation CreateTemporaryConversation($temporary: Boolean) {
    createConversation(input: { temporary: $temporary }) {
      ...ConversationFields
      ...OrganiseFields
    }
  }
`);

export const KeepConversationMutation = graphql(`
  mutation KeepConversation($id: ID!) {
    keepConversation(id: $id) {
      ...ConversationFields
      ...OrganiseFields
    }
  }
`);

export const TemporaryPolicyQuery = graphql(`
  query TemporaryPolicy {
    viewer {
      temporaryChats
    }
  }
`);

export const ExportConversationQuery = graphql(`
  query ExportConversation($id: ID!, $format: ConversationExportFormat!) {
    exportConversation(id: $id, format: $format) {
      format
      filename
      contentType
      content
    }
  }
`);
