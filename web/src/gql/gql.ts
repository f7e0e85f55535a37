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
    "\n  query AdminConversations($where: AdminConversationWhereInput, $first: Int!, $after: Cursor) {\n    adminConversations(where: $where, first: $first, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      totalCount\n      edges {\n        node {\n          id\n          title\n          userId\n          status\n          createdAt\n          updatedAt\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.AdminConversationsDocument,
    "\n  query AdminConversation($id: ID!) {\n    conversation(id: $id) {\n      id\n      title\n      userId\n      status\n      messages(last: 10, where: { role: USER }) {\n        edges {\n          node {\n            id\n            content\n            attempts {\n              id\n              status\n              answer\n              createdAt\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.AdminConversationDocument,
    "\n  query Feedbacks($where: AdminFeedbackWhereInput, $first: Int!) {\n    feedbacks(where: $where, first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          rating\n          reasonCodes\n          comment\n          userId\n          createdAt\n          attemptId\n        }\n      }\n    }\n  }\n": typeof types.FeedbacksDocument,
    "\n  query FeedbackSummary($from: Time!, $to: Time!) {\n    feedbackSummary(from: $from, to: $to) {\n      up\n      down\n      byReason {\n        reason\n        count\n      }\n    }\n  }\n": typeof types.FeedbackSummaryDocument,
    "\n  query UsageSummary($from: Time!, $to: Time!) {\n    usageSummary(from: $from, to: $to) {\n      day\n      model\n      attempts\n      promptTokens\n      completionTokens\n      totalTokens\n      costMicros\n    }\n  }\n": typeof types.UsageSummaryDocument,
    "\n  query AttemptInspector($id: ID!) {\n    attempt(id: $id) {\n      id\n      status\n      originalQuestion\n      standaloneQuestion\n      answer\n      model\n      promptTokens\n      completionTokens\n      totalTokens\n      failureCode\n      sources {\n        label\n        score\n        cited\n        available\n        documentTitle\n        snippet\n      }\n    }\n    attemptDiagnostics(id: $id) {\n      timings {\n        startedAt\n        firstTokenAt\n        completedAt\n        timeToFirstTokenMs\n        durationMs\n      }\n      contextManifest {\n        budget\n        window\n        answerReserve\n        model\n        strategy\n        historyRounds\n        droppedRounds\n        revokedRounds\n        summaryIncluded\n        droppedChunks\n        chunkIds\n        tokens {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        limits {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        candidates {\n          userSeq\n          score\n          chosen\n        }\n      }\n    }\n  }\n": typeof types.AttemptInspectorDocument,
    "\n  query Knowledge {\n    knowledgeBases(first: 10) {\n      edges {\n        node {\n          id\n          name\n          description\n          documents(first: 50) {\n            totalCount\n            edges {\n              node {\n                id\n                title\n                sourceUri\n                version\n                status\n                visibility\n                updatedAt\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.KnowledgeDocument,
    "\n  query DocumentAcl($id: ID!) {\n    documentAcl(documentId: $id) {\n      visibility\n      groups\n      users\n    }\n  }\n": typeof types.DocumentAclDocument,
    "\n  mutation SetDocumentAcl($id: ID!, $acl: DocumentAclInput!) {\n    setDocumentAcl(documentId: $id, acl: $acl) {\n      id\n      visibility\n    }\n  }\n": typeof types.SetDocumentAclDocument,
    "\n  mutation DeleteDocument($id: ID!) {\n    deleteDocument(documentId: $id) {\n      deletedDocumentId\n    }\n  }\n": typeof types.DeleteDocumentDocument,
    "\n  mutation IngestDocument($input: IngestDocumentInput!) {\n    ingestDocument(input: $input) {\n      id\n      title\n    }\n  }\n": typeof types.IngestDocumentDocument,
    "\n  fragment TenantSettingsFields on TenantSettings {\n    version\n    updatedAt\n    conversationIdleTTL\n    conversationMaxAge\n    retentionDays\n    auditRetentionDays\n    feedbackRetentionDays\n    historyStrategy\n    historyRounds\n    prioritizedCandidates\n    promptTokenBudget\n    maxAnswerTokens\n    budgetRatios {\n      system\n      evidence\n      history\n      input\n      evidenceFloor\n      evidenceCap\n    }\n    modelContextWindows {\n      model\n      contextWindow\n    }\n    retrievalTopK\n    minEvidenceScore\n    summarizer\n    summaryTriggerRounds\n    summaryMaxChars\n    summaryChunkTokens\n    summaryMaxRegenerations\n    defaultModel\n    allowedModels\n    askRatePerMinute\n    askBurst\n    supportApproval\n    supportGrantDefault\n    supportGrantMax\n  }\n": typeof types.TenantSettingsFieldsFragmentDoc,
    "\n  query TenantSettings {\n    tenantSettings {\n      ...TenantSettingsFields\n    }\n  }\n": typeof types.TenantSettingsDocument,
    "\n  mutation UpdateTenantSettings($input: UpdateTenantSettingsInput!, $expectedVersion: Int) {\n    updateTenantSettings(input: $input, expectedVersion: $expectedVersion) {\n      ...TenantSettingsFields\n    }\n  }\n": typeof types.UpdateTenantSettingsDocument,
    "\n  query AuditEvents($first: Int!, $after: Cursor, $where: AuditEventWhereInput, $orderBy: AuditEventOrder) {\n    auditEvents(first: $first, after: $after, where: $where, orderBy: $orderBy) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          actor\n          action\n          targetType\n          targetId\n          reason\n          at\n          metadata {\n            key\n            value\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.AuditEventsDocument,
    "\n  fragment ModelProfileFields on ModelProfile {\n    id\n    name\n    endpoint\n    model\n    contextWindow\n    temperatureMin\n    temperatureMax\n    temperatureDefault\n    topPMin\n    topPMax\n    topPDefault\n    maxAnswerTokensMax\n    maxAnswerTokensDefault\n    priceInputPerM\n    priceOutputPerM\n    enabled\n    allowedGroups\n    isDefault\n  }\n": typeof types.ModelProfileFieldsFragmentDoc,
    "\n  query ModelProfiles {\n    modelProfiles {\n      ...ModelProfileFields\n    }\n    modelEndpoints\n  }\n": typeof types.ModelProfilesDocument,
    "\n  mutation CreateModelProfile($input: ModelProfileInput!) {\n    createModelProfile(input: $input) {\n      ...ModelProfileFields\n    }\n  }\n": typeof types.CreateModelProfileDocument,
    "\n  mutation UpdateModelProfile($id: ID!, $input: ModelProfileInput!) {\n    updateModelProfile(id: $id, input: $input) {\n      ...ModelProfileFields\n    }\n  }\n": typeof types.UpdateModelProfileDocument,
    "\n  mutation DeleteModelProfile($id: ID!) {\n    deleteModelProfile(id: $id) {\n      deletedModelProfileId\n    }\n  }\n": typeof types.DeleteModelProfileDocument,
    "\n  query ConversationAttachments($id: ID!) {\n    conversation(id: $id) {\n      id\n      attachments {\n        id\n        name\n        status\n        failureCode\n      }\n    }\n  }\n": typeof types.ConversationAttachmentsDocument,
    "\n  subscription AttachmentEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      attachmentId\n      attachmentStatus\n    }\n  }\n": typeof types.AttachmentEventsDocument,
    "\n  query Viewer {\n    viewer {\n      tenantId\n      userId\n      roles\n      groups\n      isAdmin\n      canCurateKnowledge\n    }\n  }\n": typeof types.ViewerDocument,
    "\n  fragment ConversationFields on Conversation {\n    id\n    title\n    status\n    version\n    updatedAt\n  }\n": typeof types.ConversationFieldsFragmentDoc,
    "\n  fragment SourceFields on Source {\n    id\n    label\n    rank\n    score\n    cited\n    available\n    snippet\n    documentTitle\n    documentId\n    kind\n    attachment {\n      id\n      name\n    }\n  }\n": typeof types.SourceFieldsFragmentDoc,
    "\n  fragment AttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      ...SourceFields\n    }\n    feedback {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n": typeof types.AttemptFieldsFragmentDoc,
    "\n  fragment AttemptCoreFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n  }\n": typeof types.AttemptCoreFieldsFragmentDoc,
    "\n  fragment PathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempts {\n      ...AttemptCoreFields\n    }\n    attempt {\n      ...AttemptFields\n    }\n  }\n": typeof types.PathMessageFieldsFragmentDoc,
    "\n  query Conversation($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...PathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n": typeof types.ConversationDocument,
    "\n  query Attempt($id: ID!) {\n    attempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n": typeof types.AttemptDocument,
    "\n  mutation RenameConversation($id: ID!, $title: String!) {\n    renameConversation(id: $id, title: $title) {\n      ...ConversationFields\n    }\n  }\n": typeof types.RenameConversationDocument,
    "\n  mutation ArchiveConversation($id: ID!) {\n    archiveConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n": typeof types.ArchiveConversationDocument,
    "\n  mutation DeleteConversation($id: ID!) {\n    deleteConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n": typeof types.DeleteConversationDocument,
    "\n  mutation RestoreConversation($id: ID!) {\n    restoreConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n": typeof types.RestoreConversationDocument,
    "\n  mutation Ask($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...PathMessageFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": typeof types.AskDocument,
    "\n  mutation Retry($input: RetryAttemptInput!) {\n    retryAttempt(input: $input) {\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": typeof types.RetryDocument,
    "\n  query AttemptStaleness($id: ID!) {\n    attempt(id: $id) {\n      id\n      staleness {\n        stale\n        sources {\n          change\n          citedVersion\n          currentVersion\n          stillContainsCitedText\n          source {\n            ...SourceFields\n          }\n        }\n      }\n    }\n  }\n": typeof types.AttemptStalenessDocument,
    "\n  mutation Reask($attemptId: ID!, $clientRequestId: String, $modelProfileId: ID) {\n    reaskAttempt(attemptId: $attemptId, clientRequestId: $clientRequestId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": typeof types.ReaskDocument,
    "\n  mutation EditMessage($messageId: ID!, $question: String!, $clientMessageId: String!, $modelProfileId: ID) {\n    editMessage(messageId: $messageId, question: $question, clientMessageId: $clientMessageId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": typeof types.EditMessageDocument,
    "\n  mutation SelectBranch($conversationId: ID!, $messageId: ID!) {\n    selectBranch(conversationId: $conversationId, messageId: $messageId) {\n      id\n      currentLeafId\n    }\n  }\n": typeof types.SelectBranchDocument,
    "\n  mutation Cancel($id: ID!) {\n    cancelAttempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n": typeof types.CancelDocument,
    "\n  mutation SubmitFeedback($input: SubmitFeedbackInput!) {\n    submitFeedback(input: $input) {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n": typeof types.SubmitFeedbackDocument,
    "\n  subscription AttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        ...SourceFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n": typeof types.AttemptEventsDocument,
    "\n  subscription ConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n    }\n  }\n": typeof types.ConversationEventsDocument,
    "\n  subscription ViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n    }\n  }\n": typeof types.ViewerEventsDocument,
    "\n  query AvailableModels {\n    availableModels {\n      id\n      name\n      model\n    }\n  }\n": typeof types.AvailableModelsDocument,
    "\n  fragment OrganiseFields on Conversation {\n    id\n    version\n    pinned\n    folderId\n    temporary\n    temporaryExpiresAt\n    tags {\n      id\n      name\n      color\n    }\n  }\n": typeof types.OrganiseFieldsFragmentDoc,
    "\n  query Sidebar($first: Int!, $after: Cursor) {\n    pinned: conversations(first: 50, where: { pinned: true }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n    }\n    conversations(first: $first, after: $after, where: { pinned: false }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        cursor\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    folders {\n      id\n      name\n      parentId\n      position\n    }\n  }\n": typeof types.SidebarDocument,
    "\n  query Tags {\n    tags {\n      id\n      name\n      color\n    }\n  }\n": typeof types.TagsDocument,
    "\n  query ConversationOrganise($id: ID!) {\n    conversation(id: $id) {\n      ...OrganiseFields\n    }\n  }\n": typeof types.ConversationOrganiseDocument,
    "\n  mutation PinConversation($id: ID!) {\n    pinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": typeof types.PinConversationDocument,
    "\n  mutation UnpinConversation($id: ID!) {\n    unpinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": typeof types.UnpinConversationDocument,
    "\n  mutation CreateFolder($input: CreateFolderInput!) {\n    createFolder(input: $input) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n": typeof types.CreateFolderDocument,
    "\n  mutation RenameFolder($id: ID!, $name: String!) {\n    updateFolder(id: $id, input: { name: $name }) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n": typeof types.RenameFolderDocument,
    "\n  mutation DeleteFolder($id: ID!) {\n    deleteFolder(id: $id) {\n      deletedFolderId\n    }\n  }\n": typeof types.DeleteFolderDocument,
    "\n  mutation MoveToFolder($conversationId: ID!, $folderId: ID) {\n    moveConversationToFolder(conversationId: $conversationId, folderId: $folderId) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": typeof types.MoveToFolderDocument,
    "\n  mutation CreateTag($input: CreateTagInput!) {\n    createTag(input: $input) {\n      id\n      name\n      color\n    }\n  }\n": typeof types.CreateTagDocument,
    "\n  mutation AddTags($conversationId: ID!, $tagIds: [ID!]!) {\n    addConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n": typeof types.AddTagsDocument,
    "\n  mutation RemoveTags($conversationId: ID!, $tagIds: [ID!]!) {\n    removeConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n": typeof types.RemoveTagsDocument,
    "\n  mutation CreateTemporaryConversation($temporary: Boolean) {\n    createConversation(input: { temporary: $temporary }) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": typeof types.CreateTemporaryConversationDocument,
    "\n  mutation KeepConversation($id: ID!) {\n    keepConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": typeof types.KeepConversationDocument,
    "\n  query TemporaryPolicy {\n    viewer {\n      temporaryChats\n    }\n  }\n": typeof types.TemporaryPolicyDocument,
    "\n  query ExportConversation($id: ID!, $format: ConversationExportFormat!) {\n    exportConversation(id: $id, format: $format) {\n      format\n      filename\n      contentType\n      content\n    }\n  }\n": typeof types.ExportConversationDocument,
    "\n  query SearchConversations($query: String!, $first: Int) {\n    searchConversations(query: $query, first: $first) {\n      edges {\n        cursor\n        node {\n          conversation {\n            id\n            title\n          }\n          message {\n            id\n          }\n          matchKind\n          snippet {\n            text\n            highlights {\n              start\n              end\n            }\n          }\n          score\n        }\n      }\n    }\n  }\n": typeof types.SearchConversationsDocument,
    "\n  query SharedConversation($token: String!) {\n    sharedConversation(token: $token) {\n      title\n      messages {\n        role\n        content\n        createdAt\n        sources {\n          label\n          cited\n          available\n          title\n          snippet\n        }\n        withheld\n        withheldReason\n      }\n    }\n  }\n": typeof types.SharedConversationDocument,
};
const documents: Documents = {
    "\n  query AdminConversations($where: AdminConversationWhereInput, $first: Int!, $after: Cursor) {\n    adminConversations(where: $where, first: $first, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      totalCount\n      edges {\n        node {\n          id\n          title\n          userId\n          status\n          createdAt\n          updatedAt\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.AdminConversationsDocument,
    "\n  query AdminConversation($id: ID!) {\n    conversation(id: $id) {\n      id\n      title\n      userId\n      status\n      messages(last: 10, where: { role: USER }) {\n        edges {\n          node {\n            id\n            content\n            attempts {\n              id\n              status\n              answer\n              createdAt\n            }\n          }\n        }\n      }\n    }\n  }\n": types.AdminConversationDocument,
    "\n  query Feedbacks($where: AdminFeedbackWhereInput, $first: Int!) {\n    feedbacks(where: $where, first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          rating\n          reasonCodes\n          comment\n          userId\n          createdAt\n          attemptId\n        }\n      }\n    }\n  }\n": types.FeedbacksDocument,
    "\n  query FeedbackSummary($from: Time!, $to: Time!) {\n    feedbackSummary(from: $from, to: $to) {\n      up\n      down\n      byReason {\n        reason\n        count\n      }\n    }\n  }\n": types.FeedbackSummaryDocument,
    "\n  query UsageSummary($from: Time!, $to: Time!) {\n    usageSummary(from: $from, to: $to) {\n      day\n      model\n      attempts\n      promptTokens\n      completionTokens\n      totalTokens\n      costMicros\n    }\n  }\n": types.UsageSummaryDocument,
    "\n  query AttemptInspector($id: ID!) {\n    attempt(id: $id) {\n      id\n      status\n      originalQuestion\n      standaloneQuestion\n      answer\n      model\n      promptTokens\n      completionTokens\n      totalTokens\n      failureCode\n      sources {\n        label\n        score\n        cited\n        available\n        documentTitle\n        snippet\n      }\n    }\n    attemptDiagnostics(id: $id) {\n      timings {\n        startedAt\n        firstTokenAt\n        completedAt\n        timeToFirstTokenMs\n        durationMs\n      }\n      contextManifest {\n        budget\n        window\n        answerReserve\n        model\n        strategy\n        historyRounds\n        droppedRounds\n        revokedRounds\n        summaryIncluded\n        droppedChunks\n        chunkIds\n        tokens {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        limits {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        candidates {\n          userSeq\n          score\n          chosen\n        }\n      }\n    }\n  }\n": types.AttemptInspectorDocument,
    "\n  query Knowledge {\n    knowledgeBases(first: 10) {\n      edges {\n        node {\n          id\n          name\n          description\n          documents(first: 50) {\n            totalCount\n            edges {\n              node {\n                id\n                title\n                sourceUri\n                version\n                status\n                visibility\n                updatedAt\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n": types.KnowledgeDocument,
    "\n  query DocumentAcl($id: ID!) {\n    documentAcl(documentId: $id) {\n      visibility\n      groups\n      users\n    }\n  }\n": types.DocumentAclDocument,
    "\n  mutation SetDocumentAcl($id: ID!, $acl: DocumentAclInput!) {\n    setDocumentAcl(documentId: $id, acl: $acl) {\n      id\n      visibility\n    }\n  }\n": types.SetDocumentAclDocument,
    "\n  mutation DeleteDocument($id: ID!) {\n    deleteDocument(documentId: $id) {\n      deletedDocumentId\n    }\n  }\n": types.DeleteDocumentDocument,
    "\n  mutation IngestDocument($input: IngestDocumentInput!) {\n    ingestDocument(input: $input) {\n      id\n      title\n    }\n  }\n": types.IngestDocumentDocument,
    "\n  fragment TenantSettingsFields on TenantSettings {\n    version\n    updatedAt\n    conversationIdleTTL\n    conversationMaxAge\n    retentionDays\n    auditRetentionDays\n    feedbackRetentionDays\n    historyStrategy\n    historyRounds\n    prioritizedCandidates\n    promptTokenBudget\n    maxAnswerTokens\n    budgetRatios {\n      system\n      evidence\n      history\n      input\n      evidenceFloor\n      evidenceCap\n    }\n    modelContextWindows {\n      model\n      contextWindow\n    }\n    retrievalTopK\n    minEvidenceScore\n    summarizer\n    summaryTriggerRounds\n    summaryMaxChars\n    summaryChunkTokens\n    summaryMaxRegenerations\n    defaultModel\n    allowedModels\n    askRatePerMinute\n    askBurst\n    supportApproval\n    supportGrantDefault\n    supportGrantMax\n  }\n": types.TenantSettingsFieldsFragmentDoc,
    "\n  query TenantSettings {\n    tenantSettings {\n      ...TenantSettingsFields\n    }\n  }\n": types.TenantSettingsDocument,
    "\n  mutation UpdateTenantSettings($input: UpdateTenantSettingsInput!, $expectedVersion: Int) {\n    updateTenantSettings(input: $input, expectedVersion: $expectedVersion) {\n      ...TenantSettingsFields\n    }\n  }\n": types.UpdateTenantSettingsDocument,
    "\n  query AuditEvents($first: Int!, $after: Cursor, $where: AuditEventWhereInput, $orderBy: AuditEventOrder) {\n    auditEvents(first: $first, after: $after, where: $where, orderBy: $orderBy) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          actor\n          action\n          targetType\n          targetId\n          reason\n          at\n          metadata {\n            key\n            value\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.AuditEventsDocument,
    "\n  fragment ModelProfileFields on ModelProfile {\n    id\n    name\n    endpoint\n    model\n    contextWindow\n    temperatureMin\n    temperatureMax\n    temperatureDefault\n    topPMin\n    topPMax\n    topPDefault\n    maxAnswerTokensMax\n    maxAnswerTokensDefault\n    priceInputPerM\n    priceOutputPerM\n    enabled\n    allowedGroups\n    isDefault\n  }\n": types.ModelProfileFieldsFragmentDoc,
    "\n  query ModelProfiles {\n    modelProfiles {\n      ...ModelProfileFields\n    }\n    modelEndpoints\n  }\n": types.ModelProfilesDocument,
    "\n  mutation CreateModelProfile($input: ModelProfileInput!) {\n    createModelProfile(input: $input) {\n      ...ModelProfileFields\n    }\n  }\n": types.CreateModelProfileDocument,
    "\n  mutation UpdateModelProfile($id: ID!, $input: ModelProfileInput!) {\n    updateModelProfile(id: $id, input: $input) {\n      ...ModelProfileFields\n    }\n  }\n": types.UpdateModelProfileDocument,
    "\n  mutation DeleteModelProfile($id: ID!) {\n    deleteModelProfile(id: $id) {\n      deletedModelProfileId\n    }\n  }\n": types.DeleteModelProfileDocument,
    "\n  query ConversationAttachments($id: ID!) {\n    conversation(id: $id) {\n      id\n      attachments {\n        id\n        name\n        status\n        failureCode\n      }\n    }\n  }\n": types.ConversationAttachmentsDocument,
    "\n  subscription AttachmentEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      attachmentId\n      attachmentStatus\n    }\n  }\n": types.AttachmentEventsDocument,
    "\n  query Viewer {\n    viewer {\n      tenantId\n      userId\n      roles\n      groups\n      isAdmin\n      canCurateKnowledge\n    }\n  }\n": types.ViewerDocument,
    "\n  fragment ConversationFields on Conversation {\n    id\n    title\n    status\n    version\n    updatedAt\n  }\n": types.ConversationFieldsFragmentDoc,
    "\n  fragment SourceFields on Source {\n    id\n    label\n    rank\n    score\n    cited\n    available\n    snippet\n    documentTitle\n    documentId\n    kind\n    attachment {\n      id\n      name\n    }\n  }\n": types.SourceFieldsFragmentDoc,
    "\n  fragment AttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      ...SourceFields\n    }\n    feedback {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n": types.AttemptFieldsFragmentDoc,
    "\n  fragment AttemptCoreFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n  }\n": types.AttemptCoreFieldsFragmentDoc,
    "\n  fragment PathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempts {\n      ...AttemptCoreFields\n    }\n    attempt {\n      ...AttemptFields\n    }\n  }\n": types.PathMessageFieldsFragmentDoc,
    "\n  query Conversation($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...PathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n": types.ConversationDocument,
    "\n  query Attempt($id: ID!) {\n    attempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n": types.AttemptDocument,
    "\n  mutation RenameConversation($id: ID!, $title: String!) {\n    renameConversation(id: $id, title: $title) {\n      ...ConversationFields\n    }\n  }\n": types.RenameConversationDocument,
    "\n  mutation ArchiveConversation($id: ID!) {\n    archiveConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n": types.ArchiveConversationDocument,
    "\n  mutation DeleteConversation($id: ID!) {\n    deleteConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n": types.DeleteConversationDocument,
    "\n  mutation RestoreConversation($id: ID!) {\n    restoreConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n": types.RestoreConversationDocument,
    "\n  mutation Ask($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...PathMessageFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": types.AskDocument,
    "\n  mutation Retry($input: RetryAttemptInput!) {\n    retryAttempt(input: $input) {\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": types.RetryDocument,
    "\n  query AttemptStaleness($id: ID!) {\n    attempt(id: $id) {\n      id\n      staleness {\n        stale\n        sources {\n          change\n          citedVersion\n          currentVersion\n          stillContainsCitedText\n          source {\n            ...SourceFields\n          }\n        }\n      }\n    }\n  }\n": types.AttemptStalenessDocument,
    "\n  mutation Reask($attemptId: ID!, $clientRequestId: String, $modelProfileId: ID) {\n    reaskAttempt(attemptId: $attemptId, clientRequestId: $clientRequestId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": types.ReaskDocument,
    "\n  mutation EditMessage($messageId: ID!, $question: String!, $clientMessageId: String!, $modelProfileId: ID) {\n    editMessage(messageId: $messageId, question: $question, clientMessageId: $clientMessageId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n": types.EditMessageDocument,
    "\n  mutation SelectBranch($conversationId: ID!, $messageId: ID!) {\n    selectBranch(conversationId: $conversationId, messageId: $messageId) {\n      id\n      currentLeafId\n    }\n  }\n": types.SelectBranchDocument,
    "\n  mutation Cancel($id: ID!) {\n    cancelAttempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n": types.CancelDocument,
    "\n  mutation SubmitFeedback($input: SubmitFeedbackInput!) {\n    submitFeedback(input: $input) {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n": types.SubmitFeedbackDocument,
    "\n  subscription AttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        ...SourceFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n": types.AttemptEventsDocument,
    "\n  subscription ConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n    }\n  }\n": types.ConversationEventsDocument,
    "\n  subscription ViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n    }\n  }\n": types.ViewerEventsDocument,
    "\n  query AvailableModels {\n    availableModels {\n      id\n      name\n      model\n    }\n  }\n": types.AvailableModelsDocument,
    "\n  fragment OrganiseFields on Conversation {\n    id\n    version\n    pinned\n    folderId\n    temporary\n    temporaryExpiresAt\n    tags {\n      id\n      name\n      color\n    }\n  }\n": types.OrganiseFieldsFragmentDoc,
    "\n  query Sidebar($first: Int!, $after: Cursor) {\n    pinned: conversations(first: 50, where: { pinned: true }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n    }\n    conversations(first: $first, after: $after, where: { pinned: false }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        cursor\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    folders {\n      id\n      name\n      parentId\n      position\n    }\n  }\n": types.SidebarDocument,
    "\n  query Tags {\n    tags {\n      id\n      name\n      color\n    }\n  }\n": types.TagsDocument,
    "\n  query ConversationOrganise($id: ID!) {\n    conversation(id: $id) {\n      ...OrganiseFields\n    }\n  }\n": types.ConversationOrganiseDocument,
    "\n  mutation PinConversation($id: ID!) {\n    pinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": types.PinConversationDocument,
    "\n  mutation UnpinConversation($id: ID!) {\n    unpinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": types.UnpinConversationDocument,
    "\n  mutation CreateFolder($input: CreateFolderInput!) {\n    createFolder(input: $input) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n": types.CreateFolderDocument,
    "\n  mutation RenameFolder($id: ID!, $name: String!) {\n    updateFolder(id: $id, input: { name: $name }) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n": types.RenameFolderDocument,
    "\n  mutation DeleteFolder($id: ID!) {\n    deleteFolder(id: $id) {\n      deletedFolderId\n    }\n  }\n": types.DeleteFolderDocument,
    "\n  mutation MoveToFolder($conversationId: ID!, $folderId: ID) {\n    moveConversationToFolder(conversationId: $conversationId, folderId: $folderId) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": types.MoveToFolderDocument,
    "\n  mutation CreateTag($input: CreateTagInput!) {\n    createTag(input: $input) {\n      id\n      name\n      color\n    }\n  }\n": types.CreateTagDocument,
    "\n  mutation AddTags($conversationId: ID!, $tagIds: [ID!]!) {\n    addConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n": types.AddTagsDocument,
    "\n  mutation RemoveTags($conversationId: ID!, $tagIds: [ID!]!) {\n    removeConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n": types.RemoveTagsDocument,
    "\n  mutation CreateTemporaryConversation($temporary: Boolean) {\n    createConversation(input: { temporary: $temporary }) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": types.CreateTemporaryConversationDocument,
    "\n  mutation KeepConversation($id: ID!) {\n    keepConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n": types.KeepConversationDocument,
    "\n  query TemporaryPolicy {\n    viewer {\n      temporaryChats\n    }\n  }\n": types.TemporaryPolicyDocument,
    "\n  query ExportConversation($id: ID!, $format: ConversationExportFormat!) {\n    exportConversation(id: $id, format: $format) {\n      format\n      filename\n      contentType\n      content\n    }\n  }\n": types.ExportConversationDocument,
    "\n  query SearchConversations($query: String!, $first: Int) {\n    searchConversations(query: $query, first: $first) {\n      edges {\n        cursor\n        node {\n          conversation {\n            id\n            title\n          }\n          message {\n            id\n          }\n          matchKind\n          snippet {\n            text\n            highlights {\n              start\n              end\n            }\n          }\n          score\n        }\n      }\n    }\n  }\n": types.SearchConversationsDocument,
    "\n  query SharedConversation($token: String!) {\n    sharedConversation(token: $token) {\n      title\n      messages {\n        role\n        content\n        createdAt\n        sources {\n          label\n          cited\n          available\n          title\n          snippet\n        }\n        withheld\n        withheldReason\n      }\n    }\n  }\n": types.SharedConversationDocument,
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
export function graphql(source: "\n  query AdminConversations($where: AdminConversationWhereInput, $first: Int!, $after: Cursor) {\n    adminConversations(where: $where, first: $first, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      totalCount\n      edges {\n        node {\n          id\n          title\n          userId\n          status\n          createdAt\n          updatedAt\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query AdminConversations($where: AdminConversationWhereInput, $first: Int!, $after: Cursor) {\n    adminConversations(where: $where, first: $first, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      totalCount\n      edges {\n        node {\n          id\n          title\n          userId\n          status\n          createdAt\n          updatedAt\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminConversation($id: ID!) {\n    conversation(id: $id) {\n      id\n      title\n      userId\n      status\n      messages(last: 10, where: { role: USER }) {\n        edges {\n          node {\n            id\n            content\n            attempts {\n              id\n              status\n              answer\n              createdAt\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AdminConversation($id: ID!) {\n    conversation(id: $id) {\n      id\n      title\n      userId\n      status\n      messages(last: 10, where: { role: USER }) {\n        edges {\n          node {\n            id\n            content\n            attempts {\n              id\n              status\n              answer\n              createdAt\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Feedbacks($where: AdminFeedbackWhereInput, $first: Int!) {\n    feedbacks(where: $where, first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          rating\n          reasonCodes\n          comment\n          userId\n          createdAt\n          attemptId\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Feedbacks($where: AdminFeedbackWhereInput, $first: Int!) {\n    feedbacks(where: $where, first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          rating\n          reasonCodes\n          comment\n          userId\n          createdAt\n          attemptId\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query FeedbackSummary($from: Time!, $to: Time!) {\n    feedbackSummary(from: $from, to: $to) {\n      up\n      down\n      byReason {\n        reason\n        count\n      }\n    }\n  }\n"): (typeof documents)["\n  query FeedbackSummary($from: Time!, $to: Time!) {\n    feedbackSummary(from: $from, to: $to) {\n      up\n      down\n      byReason {\n        reason\n        count\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UsageSummary($from: Time!, $to: Time!) {\n    usageSummary(from: $from, to: $to) {\n      day\n      model\n      attempts\n      promptTokens\n      completionTokens\n      totalTokens\n      costMicros\n    }\n  }\n"): (typeof documents)["\n  query UsageSummary($from: Time!, $to: Time!) {\n    usageSummary(from: $from, to: $to) {\n      day\n      model\n      attempts\n      promptTokens\n      completionTokens\n      totalTokens\n      costMicros\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AttemptInspector($id: ID!) {\n    attempt(id: $id) {\n      id\n      status\n      originalQuestion\n      standaloneQuestion\n      answer\n      model\n      promptTokens\n      completionTokens\n      totalTokens\n      failureCode\n      sources {\n        label\n        score\n        cited\n        available\n        documentTitle\n        snippet\n      }\n    }\n    attemptDiagnostics(id: $id) {\n      timings {\n        startedAt\n        firstTokenAt\n        completedAt\n        timeToFirstTokenMs\n        durationMs\n      }\n      contextManifest {\n        budget\n        window\n        answerReserve\n        model\n        strategy\n        historyRounds\n        droppedRounds\n        revokedRounds\n        summaryIncluded\n        droppedChunks\n        chunkIds\n        tokens {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        limits {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        candidates {\n          userSeq\n          score\n          chosen\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AttemptInspector($id: ID!) {\n    attempt(id: $id) {\n      id\n      status\n      originalQuestion\n      standaloneQuestion\n      answer\n      model\n      promptTokens\n      completionTokens\n      totalTokens\n      failureCode\n      sources {\n        label\n        score\n        cited\n        available\n        documentTitle\n        snippet\n      }\n    }\n    attemptDiagnostics(id: $id) {\n      timings {\n        startedAt\n        firstTokenAt\n        completedAt\n        timeToFirstTokenMs\n        durationMs\n      }\n      contextManifest {\n        budget\n        window\n        answerReserve\n        model\n        strategy\n        historyRounds\n        droppedRounds\n        revokedRounds\n        summaryIncluded\n        droppedChunks\n        chunkIds\n        tokens {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        limits {\n          system\n          question\n          evidence\n          history\n          summary\n          total\n        }\n        candidates {\n          userSeq\n          score\n          chosen\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Knowledge {\n    knowledgeBases(first: 10) {\n      edges {\n        node {\n          id\n          name\n          description\n          documents(first: 50) {\n            totalCount\n            edges {\n              node {\n                id\n                title\n                sourceUri\n                version\n                status\n                visibility\n                updatedAt\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Knowledge {\n    knowledgeBases(first: 10) {\n      edges {\n        node {\n          id\n          name\n          description\n          documents(first: 50) {\n            totalCount\n            edges {\n              node {\n                id\n                title\n                sourceUri\n                version\n                status\n                visibility\n                updatedAt\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DocumentAcl($id: ID!) {\n    documentAcl(documentId: $id) {\n      visibility\n      groups\n      users\n    }\n  }\n"): (typeof documents)["\n  query DocumentAcl($id: ID!) {\n    documentAcl(documentId: $id) {\n      visibility\n      groups\n      users\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetDocumentAcl($id: ID!, $acl: DocumentAclInput!) {\n    setDocumentAcl(documentId: $id, acl: $acl) {\n      id\n      visibility\n    }\n  }\n"): (typeof documents)["\n  mutation SetDocumentAcl($id: ID!, $acl: DocumentAclInput!) {\n    setDocumentAcl(documentId: $id, acl: $acl) {\n      id\n      visibility\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteDocument($id: ID!) {\n    deleteDocument(documentId: $id) {\n      deletedDocumentId\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteDocument($id: ID!) {\n    deleteDocument(documentId: $id) {\n      deletedDocumentId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IngestDocument($input: IngestDocumentInput!) {\n    ingestDocument(input: $input) {\n      id\n      title\n    }\n  }\n"): (typeof documents)["\n  mutation IngestDocument($input: IngestDocumentInput!) {\n    ingestDocument(input: $input) {\n      id\n      title\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment TenantSettingsFields on TenantSettings {\n    version\n    updatedAt\n    conversationIdleTTL\n    conversationMaxAge\n    retentionDays\n    auditRetentionDays\n    feedbackRetentionDays\n    historyStrategy\n    historyRounds\n    prioritizedCandidates\n    promptTokenBudget\n    maxAnswerTokens\n    budgetRatios {\n      system\n      evidence\n      history\n      input\n      evidenceFloor\n      evidenceCap\n    }\n    modelContextWindows {\n      model\n      contextWindow\n    }\n    retrievalTopK\n    minEvidenceScore\n    summarizer\n    summaryTriggerRounds\n    summaryMaxChars\n    summaryChunkTokens\n    summaryMaxRegenerations\n    defaultModel\n    allowedModels\n    askRatePerMinute\n    askBurst\n    supportApproval\n    supportGrantDefault\n    supportGrantMax\n  }\n"): (typeof documents)["\n  fragment TenantSettingsFields on TenantSettings {\n    version\n    updatedAt\n    conversationIdleTTL\n    conversationMaxAge\n    retentionDays\n    auditRetentionDays\n    feedbackRetentionDays\n    historyStrategy\n    historyRounds\n    prioritizedCandidates\n    promptTokenBudget\n    maxAnswerTokens\n    budgetRatios {\n      system\n      evidence\n      history\n      input\n      evidenceFloor\n      evidenceCap\n    }\n    modelContextWindows {\n      model\n      contextWindow\n    }\n    retrievalTopK\n    minEvidenceScore\n    summarizer\n    summaryTriggerRounds\n    summaryMaxChars\n    summaryChunkTokens\n    summaryMaxRegenerations\n    defaultModel\n    allowedModels\n    askRatePerMinute\n    askBurst\n    supportApproval\n    supportGrantDefault\n    supportGrantMax\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TenantSettings {\n    tenantSettings {\n      ...TenantSettingsFields\n    }\n  }\n"): (typeof documents)["\n  query TenantSettings {\n    tenantSettings {\n      ...TenantSettingsFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateTenantSettings($input: UpdateTenantSettingsInput!, $expectedVersion: Int) {\n    updateTenantSettings(input: $input, expectedVersion: $expectedVersion) {\n      ...TenantSettingsFields\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateTenantSettings($input: UpdateTenantSettingsInput!, $expectedVersion: Int) {\n    updateTenantSettings(input: $input, expectedVersion: $expectedVersion) {\n      ...TenantSettingsFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditEvents($first: Int!, $after: Cursor, $where: AuditEventWhereInput, $orderBy: AuditEventOrder) {\n    auditEvents(first: $first, after: $after, where: $where, orderBy: $orderBy) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          actor\n          action\n          targetType\n          targetId\n          reason\n          at\n          metadata {\n            key\n            value\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query AuditEvents($first: Int!, $after: Cursor, $where: AuditEventWhereInput, $orderBy: AuditEventOrder) {\n    auditEvents(first: $first, after: $after, where: $where, orderBy: $orderBy) {\n      totalCount\n      edges {\n        cursor\n        node {\n          id\n          actor\n          action\n          targetType\n          targetId\n          reason\n          at\n          metadata {\n            key\n            value\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ModelProfileFields on ModelProfile {\n    id\n    name\n    endpoint\n    model\n    contextWindow\n    temperatureMin\n    temperatureMax\n    temperatureDefault\n    topPMin\n    topPMax\n    topPDefault\n    maxAnswerTokensMax\n    maxAnswerTokensDefault\n    priceInputPerM\n    priceOutputPerM\n    enabled\n    allowedGroups\n    isDefault\n  }\n"): (typeof documents)["\n  fragment ModelProfileFields on ModelProfile {\n    id\n    name\n    endpoint\n    model\n    contextWindow\n    temperatureMin\n    temperatureMax\n    temperatureDefault\n    topPMin\n    topPMax\n    topPDefault\n    maxAnswerTokensMax\n    maxAnswerTokensDefault\n    priceInputPerM\n    priceOutputPerM\n    enabled\n    allowedGroups\n    isDefault\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ModelProfiles {\n    modelProfiles {\n      ...ModelProfileFields\n    }\n    modelEndpoints\n  }\n"): (typeof documents)["\n  query ModelProfiles {\n    modelProfiles {\n      ...ModelProfileFields\n    }\n    modelEndpoints\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateModelProfile($input: ModelProfileInput!) {\n    createModelProfile(input: $input) {\n      ...ModelProfileFields\n    }\n  }\n"): (typeof documents)["\n  mutation CreateModelProfile($input: ModelProfileInput!) {\n    createModelProfile(input: $input) {\n      ...ModelProfileFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateModelProfile($id: ID!, $input: ModelProfileInput!) {\n    updateModelProfile(id: $id, input: $input) {\n      ...ModelProfileFields\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateModelProfile($id: ID!, $input: ModelProfileInput!) {\n    updateModelProfile(id: $id, input: $input) {\n      ...ModelProfileFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteModelProfile($id: ID!) {\n    deleteModelProfile(id: $id) {\n      deletedModelProfileId\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteModelProfile($id: ID!) {\n    deleteModelProfile(id: $id) {\n      deletedModelProfileId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConversationAttachments($id: ID!) {\n    conversation(id: $id) {\n      id\n      attachments {\n        id\n        name\n        status\n        failureCode\n      }\n    }\n  }\n"): (typeof documents)["\n  query ConversationAttachments($id: ID!) {\n    conversation(id: $id) {\n      id\n      attachments {\n        id\n        name\n        status\n        failureCode\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription AttachmentEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      attachmentId\n      attachmentStatus\n    }\n  }\n"): (typeof documents)["\n  subscription AttachmentEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      attachmentId\n      attachmentStatus\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Viewer {\n    viewer {\n      tenantId\n      userId\n      roles\n      groups\n      isAdmin\n      canCurateKnowledge\n    }\n  }\n"): (typeof documents)["\n  query Viewer {\n    viewer {\n      tenantId\n      userId\n      roles\n      groups\n      isAdmin\n      canCurateKnowledge\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ConversationFields on Conversation {\n    id\n    title\n    status\n    version\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment ConversationFields on Conversation {\n    id\n    title\n    status\n    version\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment SourceFields on Source {\n    id\n    label\n    rank\n    score\n    cited\n    available\n    snippet\n    documentTitle\n    documentId\n    kind\n    attachment {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  fragment SourceFields on Source {\n    id\n    label\n    rank\n    score\n    cited\n    available\n    snippet\n    documentTitle\n    documentId\n    kind\n    attachment {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      ...SourceFields\n    }\n    feedback {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n"): (typeof documents)["\n  fragment AttemptFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n    sources {\n      ...SourceFields\n    }\n    feedback {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AttemptCoreFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n  }\n"): (typeof documents)["\n  fragment AttemptCoreFields on Attempt {\n    id\n    status\n    answer\n    checkpointSeq\n    originalQuestion\n    standaloneQuestion\n    requiresHistory\n    refused\n    failureCode\n    failureMessage\n    retryOfId\n    createdAt\n    model\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempts {\n      ...AttemptCoreFields\n    }\n    attempt {\n      ...AttemptFields\n    }\n  }\n"): (typeof documents)["\n  fragment PathMessageFields on Message {\n    id\n    role\n    content\n    parentId\n    depth\n    createdAt\n    clientMessageId\n    attemptId\n    siblings {\n      ids\n      index\n      count\n    }\n    attempts {\n      ...AttemptCoreFields\n    }\n    attempt {\n      ...AttemptFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Conversation($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...PathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Conversation($id: ID!, $last: Int!, $before: Cursor) {\n    conversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n      currentLeafId\n      currentPath(last: $last, before: $before) {\n        edges {\n          cursor\n          node {\n            ...PathMessageFields\n          }\n        }\n        pageInfo {\n          hasPreviousPage\n          startCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Attempt($id: ID!) {\n    attempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n"): (typeof documents)["\n  query Attempt($id: ID!) {\n    attempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RenameConversation($id: ID!, $title: String!) {\n    renameConversation(id: $id, title: $title) {\n      ...ConversationFields\n    }\n  }\n"): (typeof documents)["\n  mutation RenameConversation($id: ID!, $title: String!) {\n    renameConversation(id: $id, title: $title) {\n      ...ConversationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ArchiveConversation($id: ID!) {\n    archiveConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n"): (typeof documents)["\n  mutation ArchiveConversation($id: ID!) {\n    archiveConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteConversation($id: ID!) {\n    deleteConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteConversation($id: ID!) {\n    deleteConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RestoreConversation($id: ID!) {\n    restoreConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n"): (typeof documents)["\n  mutation RestoreConversation($id: ID!) {\n    restoreConversation(id: $id) {\n      ...ConversationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Ask($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...PathMessageFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation Ask($input: AskInput!) {\n    ask(input: $input) {\n      deduplicated\n      userMessage {\n        ...PathMessageFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Retry($input: RetryAttemptInput!) {\n    retryAttempt(input: $input) {\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation Retry($input: RetryAttemptInput!) {\n    retryAttempt(input: $input) {\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AttemptStaleness($id: ID!) {\n    attempt(id: $id) {\n      id\n      staleness {\n        stale\n        sources {\n          change\n          citedVersion\n          currentVersion\n          stillContainsCitedText\n          source {\n            ...SourceFields\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AttemptStaleness($id: ID!) {\n    attempt(id: $id) {\n      id\n      staleness {\n        stale\n        sources {\n          change\n          citedVersion\n          currentVersion\n          stillContainsCitedText\n          source {\n            ...SourceFields\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Reask($attemptId: ID!, $clientRequestId: String, $modelProfileId: ID) {\n    reaskAttempt(attemptId: $attemptId, clientRequestId: $clientRequestId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation Reask($attemptId: ID!, $clientRequestId: String, $modelProfileId: ID) {\n    reaskAttempt(attemptId: $attemptId, clientRequestId: $clientRequestId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation EditMessage($messageId: ID!, $question: String!, $clientMessageId: String!, $modelProfileId: ID) {\n    editMessage(messageId: $messageId, question: $question, clientMessageId: $clientMessageId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation EditMessage($messageId: ID!, $question: String!, $clientMessageId: String!, $modelProfileId: ID) {\n    editMessage(messageId: $messageId, question: $question, clientMessageId: $clientMessageId, modelProfileId: $modelProfileId) {\n      deduplicated\n      userMessage {\n        id\n      }\n      attempt {\n        ...AttemptFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SelectBranch($conversationId: ID!, $messageId: ID!) {\n    selectBranch(conversationId: $conversationId, messageId: $messageId) {\n      id\n      currentLeafId\n    }\n  }\n"): (typeof documents)["\n  mutation SelectBranch($conversationId: ID!, $messageId: ID!) {\n    selectBranch(conversationId: $conversationId, messageId: $messageId) {\n      id\n      currentLeafId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Cancel($id: ID!) {\n    cancelAttempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n"): (typeof documents)["\n  mutation Cancel($id: ID!) {\n    cancelAttempt(id: $id) {\n      ...AttemptFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SubmitFeedback($input: SubmitFeedbackInput!) {\n    submitFeedback(input: $input) {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n"): (typeof documents)["\n  mutation SubmitFeedback($input: SubmitFeedbackInput!) {\n    submitFeedback(input: $input) {\n      id\n      rating\n      reasonCodes\n      comment\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription AttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        ...SourceFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n"): (typeof documents)["\n  subscription AttemptEvents($attemptId: ID!, $afterSeq: Int) {\n    attemptEvents(attemptId: $attemptId, afterSeq: $afterSeq) {\n      kind\n      seq\n      text\n      standaloneQuestion\n      requiresHistory\n      sources {\n        ...SourceFields\n      }\n      attempt {\n        ...AttemptFields\n      }\n      failureCode\n      failureMessage\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n    }\n  }\n"): (typeof documents)["\n  subscription ConversationEvents($conversationId: ID!) {\n    conversationEvents(conversationId: $conversationId) {\n      kind\n      conversationId\n      messageId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n    }\n  }\n"): (typeof documents)["\n  subscription ViewerEvents {\n    viewerEvents {\n      kind\n      conversationId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AvailableModels {\n    availableModels {\n      id\n      name\n      model\n    }\n  }\n"): (typeof documents)["\n  query AvailableModels {\n    availableModels {\n      id\n      name\n      model\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment OrganiseFields on Conversation {\n    id\n    version\n    pinned\n    folderId\n    temporary\n    temporaryExpiresAt\n    tags {\n      id\n      name\n      color\n    }\n  }\n"): (typeof documents)["\n  fragment OrganiseFields on Conversation {\n    id\n    version\n    pinned\n    folderId\n    temporary\n    temporaryExpiresAt\n    tags {\n      id\n      name\n      color\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Sidebar($first: Int!, $after: Cursor) {\n    pinned: conversations(first: 50, where: { pinned: true }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n    }\n    conversations(first: $first, after: $after, where: { pinned: false }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        cursor\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    folders {\n      id\n      name\n      parentId\n      position\n    }\n  }\n"): (typeof documents)["\n  query Sidebar($first: Int!, $after: Cursor) {\n    pinned: conversations(first: 50, where: { pinned: true }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n    }\n    conversations(first: $first, after: $after, where: { pinned: false }, orderBy: { field: UPDATED_AT, direction: DESC }) {\n      edges {\n        cursor\n        node {\n          ...ConversationFields\n          ...OrganiseFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    folders {\n      id\n      name\n      parentId\n      position\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Tags {\n    tags {\n      id\n      name\n      color\n    }\n  }\n"): (typeof documents)["\n  query Tags {\n    tags {\n      id\n      name\n      color\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConversationOrganise($id: ID!) {\n    conversation(id: $id) {\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  query ConversationOrganise($id: ID!) {\n    conversation(id: $id) {\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PinConversation($id: ID!) {\n    pinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  mutation PinConversation($id: ID!) {\n    pinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UnpinConversation($id: ID!) {\n    unpinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  mutation UnpinConversation($id: ID!) {\n    unpinConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateFolder($input: CreateFolderInput!) {\n    createFolder(input: $input) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n"): (typeof documents)["\n  mutation CreateFolder($input: CreateFolderInput!) {\n    createFolder(input: $input) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RenameFolder($id: ID!, $name: String!) {\n    updateFolder(id: $id, input: { name: $name }) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n"): (typeof documents)["\n  mutation RenameFolder($id: ID!, $name: String!) {\n    updateFolder(id: $id, input: { name: $name }) {\n      id\n      name\n      parentId\n      position\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteFolder($id: ID!) {\n    deleteFolder(id: $id) {\n      deletedFolderId\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteFolder($id: ID!) {\n    deleteFolder(id: $id) {\n      deletedFolderId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MoveToFolder($conversationId: ID!, $folderId: ID) {\n    moveConversationToFolder(conversationId: $conversationId, folderId: $folderId) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  mutation MoveToFolder($conversationId: ID!, $folderId: ID) {\n    moveConversationToFolder(conversationId: $conversationId, folderId: $folderId) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateTag($input: CreateTagInput!) {\n    createTag(input: $input) {\n      id\n      name\n      color\n    }\n  }\n"): (typeof documents)["\n  mutation CreateTag($input: CreateTagInput!) {\n    createTag(input: $input) {\n      id\n      name\n      color\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AddTags($conversationId: ID!, $tagIds: [ID!]!) {\n    addConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  mutation AddTags($conversationId: ID!, $tagIds: [ID!]!) {\n    addConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveTags($conversationId: ID!, $tagIds: [ID!]!) {\n    removeConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  mutation RemoveTags($conversationId: ID!, $tagIds: [ID!]!) {\n    removeConversationTags(conversationId: $conversationId, tagIds: $tagIds) {\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateTemporaryConversation($temporary: Boolean) {\n    createConversation(input: { temporary: $temporary }) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  mutation CreateTemporaryConversation($temporary: Boolean) {\n    createConversation(input: { temporary: $temporary }) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation KeepConversation($id: ID!) {\n    keepConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"): (typeof documents)["\n  mutation KeepConversation($id: ID!) {\n    keepConversation(id: $id) {\n      ...ConversationFields\n      ...OrganiseFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TemporaryPolicy {\n    viewer {\n      temporaryChats\n    }\n  }\n"): (typeof documents)["\n  query TemporaryPolicy {\n    viewer {\n      temporaryChats\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExportConversation($id: ID!, $format: ConversationExportFormat!) {\n    exportConversation(id: $id, format: $format) {\n      format\n      filename\n      contentType\n      content\n    }\n  }\n"): (typeof documents)["\n  query ExportConversation($id: ID!, $format: ConversationExportFormat!) {\n    exportConversation(id: $id, format: $format) {\n      format\n      filename\n      contentType\n      content\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SearchConversations($query: String!, $first: Int) {\n    searchConversations(query: $query, first: $first) {\n      edges {\n        cursor\n        node {\n          conversation {\n            id\n            title\n          }\n          message {\n            id\n          }\n          matchKind\n          snippet {\n            text\n            highlights {\n              start\n              end\n            }\n          }\n          score\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query SearchConversations($query: String!, $first: Int) {\n    searchConversations(query: $query, first: $first) {\n      edges {\n        cursor\n        node {\n          conversation {\n            id\n            title\n          }\n          message {\n            id\n          }\n          matchKind\n          snippet {\n            text\n            highlights {\n              start\n              end\n            }\n          }\n          score\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SharedConversation($token: String!) {\n    sharedConversation(token: $token) {\n      title\n      messages {\n        role\n        content\n        createdAt\n        sources {\n          label\n          cited\n          available\n          title\n          snippet\n        }\n        withheld\n        withheldReason\n      }\n    }\n  }\n"): (typeof documents)["\n  query SharedConversation($token: String!) {\n    sharedConversation(token: $token) {\n      title\n      messages {\n        role\n        content\n        createdAt\n        sources {\n          label\n          cited\n          available\n          title\n          snippet\n        }\n        withheld\n        withheldReason\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;