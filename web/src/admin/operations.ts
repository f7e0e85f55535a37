// The admin console's GraphQL operations (typed by graphql-codegen).
import { graphql } from '../gql';

export const AdminConversationsQuery = graphql(`
  query AdminConversations($where: AdminConversationWhereInput, $first: Int!, $after: Cursor) {
    adminConversations(where: $where, first: $first, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) {
      totalCount
      edges {
        node {
          id
          title
          userId
          status
          createdAt
          updatedAt
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const AdminConversationQuery = graphql(`
  query AdminConversation($id: ID!) {
    conversation(id: $id) {
      id
      title
      userId
      status
      messages(last: 10, where: { role: USER }) {
        edges {
          node {
            id
            content
            attempts {
              id
              status
              answer
              createdAt
            }
          }
        }
      }
    }
  }
`);

export const FeedbacksQuery = graphql(`
  query Feedbacks($where: AdminFeedbackWhereInput, $first: Int!) {
    feedbacks(where: $where, first: $first) {
      totalCount
      edges {
        node {
          id
          rating
          reasonCodes
          comment
          userId
          createdAt
          attemptId
        }
      }
    }
  }
`);

export const FeedbackSummaryQuery = graphql(`
  query FeedbackSummary($from: Time!, $to: Time!) {
    feedbackSummary(from: $from, to: $to) {
      up
      down
      byReason {
        reason
        count
      }
    }
  }
`);

export const UsageSummaryQuery = graphql(`
  query UsageSummary($from: Time!, $to: Time!) {
    usageSummary(from: $from, to: $to) {
      day
      model
      attempts
      promptTokens
      completionTokens
      totalTokens
      costMicros
    }
  }
`);

export const AttemptInspectorQuery = graphql(`
  query AttemptInspector($id: ID!) {
    attempt(id: $id) {
      id
      status
      originalQuestion
      standaloneQuestion
      answer
      model
      promptTokens
      completionTokens
      totalTokens
      failureCode
      sources {
        label
        score
        cited
        available
        documentTitle
        snippet
      }
    }
    attemptDiagnostics(id: $id) {
      timings {
        startedAt
        firstTokenAt
        completedAt
        timeToFirstTokenMs
        durationMs
      }
      contextManifest {
        budget
        window
        answerReserve
        model
        strategy
        historyRounds
        droppedRounds
        revokedRounds
        summaryIncluded
        droppedChunks
        chunkIds
        tokens {
          system
          question
          evidence
          history
          summary
          total
        }
        limits {
          system
          question
          evidence
          history
          summary
          total
        }
        candidates {
          userSeq
          score
          chosen
        }
      }
    }
  }
`);

export const KnowledgeQuery = graphql(`
  query Knowledge {
    knowledgeBases(first: 10) {
      edges {
        node {
          id
          name
          description
          documents(first: 50) {
            totalCount
            edges {
              node {
                id
                title
                sourceUri
                version
                status
                visibility
                updatedAt
              }
            }
          }
        }
      }
    }
  }
`);

export const DocumentAclQuery = graphql(`
  query DocumentAcl($id: ID!) {
    documentAcl(documentId: $id) {
      visibility
      groups
      users
    }
  }
`);

export const SetDocumentAclMutation = graphql(`
  mutation SetDocumentAcl($id: ID!, $acl: DocumentAclInput!) {
    setDocumentAcl(documentId: $id, acl: $acl) {
      id
      visibility
    }
  }
`);

export const DeleteDocumentMutation = graphql(`
  mutation DeleteDocument($id: ID!) {
    deleteDocument(documentId: $id) {
      deletedDocumentId
    }
  }
`);

export const IngestDocumentMutation = graphql(`
  mutation IngestDocument($input: IngestDocumentInput!) {
    ingestDocument(input: $input) {
      id
      title
    }
  }
`);

export const TenantSettingsFields = graphql(`
  fragment TenantSettingsFields on TenantSettings {
    version
    updatedAt
    conversationIdleTTL
    conversationMaxAge
    retentionDays
    auditRetentionDays
    feedbackRetentionDays
    historyStrategy
    historyRounds
    prioritizedCandidates
    promptTokenBudget
    maxAnswerTokens
    budgetRatios {
      system
      evidence
      history
      input
      evidenceFloor
      evidenceCap
    }
    modelContextWindows {
      model
      contextWindow
    }
    retrievalTopK
    minEvidenceScore
    summarizer
    summaryTriggerRounds
    summaryMaxChars
    summaryChunkTokens
    summaryMaxRegenerations
    defaultModel
    allowedModels
    askRatePerMinute
    askBurst
    supportApproval
    supportGrantDefault
    supportGrantMax
  }
`);

export const TenantSettingsQuery = graphql(`
  query TenantSettings {
    tenantSettings {
      ...TenantSettingsFields
    }
  }
`);

export const UpdateTenantSettingsMutation = graphql(`
  mutation UpdateTenantSettings($input: UpdateTenantSettingsInput!, $expectedVersion: Int) {
    updateTenantSettings(input: $input, expectedVersion: $expectedVersion) {
      ...TenantSettingsFields
    }
  }
`);

export const AuditEventsQuery = graphql(`
  query AuditEvents($first: Int!, $after: Cursor, $where: AuditEventWhereInput, $orderBy: AuditEventOrder) {
    auditEvents(first: $first, after: $after, where: $where, orderBy: $orderBy) {
      totalCount
      edges {
        cursor
        node {
          id
          actor
          action
          targetType
          targetId
          reason
          at
          metadata {
            key
            value
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

// Model profiles (docs/API.md, "Model profiles").
export const ModelProfileFields = graphql(`
  fragment ModelProfileFields on ModelProfile {
    id
    name
    endpoint
    model
    contextWindow
    temperatureMin
    temperatureMax
    temperatureDefault
    topPMin
    topPMax
    topPDefault
    maxAnswerTokensMax
    maxAnswerTokensDefault
    priceInputPerM
    priceOutputPerM
    enabled
    allowedGroups
    isDefault
  }
`);

export const ModelProfilesQuery = graphql(`
  query ModelProfiles {
    modelProfiles {
      ...ModelProfileFields
    }
    modelEndpoints
  }
`);

export const CreateModelProfileMutation = graphql(`
  mutation CreateModelProfile($input: ModelProfileInput!) {
    createModelProfile(input: $input) {
      ...ModelProfileFields
    }
  }
`);

export const UpdateModelProfileMutation = graphql(`
  mutation UpdateModelProfile($id: ID!, $input: ModelProfileInput!) {
    updateModelProfile(id: $id, input: $input) {
      ...ModelProfileFields
    }
  }
`);

export const DeleteModelProfileMutation = graphql(`
  mutation DeleteModelProfile($id: ID!) {
    deleteModelProfile(id: $id) {
      deletedModelProfileId
    }
  }
`);
