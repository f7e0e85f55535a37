-- reverse: modify "sources" table
ALTER TABLE "sources" DROP CONSTRAINT "sources_tenants_tenant", DROP CONSTRAINT "sources_documents_document", DROP CONSTRAINT "sources_chunks_chunk", DROP CONSTRAINT "sources_attempts_sources";
-- reverse: modify "messages" table
ALTER TABLE "messages" DROP CONSTRAINT "messages_tenants_tenant", DROP CONSTRAINT "messages_conversations_messages", DROP CONSTRAINT "messages_attempts_assistant_message";
-- reverse: modify "knowledge_bases" table
ALTER TABLE "knowledge_bases" DROP CONSTRAINT "knowledge_bases_tenants_tenant";
-- reverse: modify "feedbacks" table
ALTER TABLE "feedbacks" DROP CONSTRAINT "feedbacks_tenants_tenant", DROP CONSTRAINT "feedbacks_attempts_feedback";
-- reverse: modify "document_grants" table
ALTER TABLE "document_grants" DROP CONSTRAINT "document_grants_tenants_tenant", DROP CONSTRAINT "document_grants_documents_grants";
-- reverse: modify "documents" table
ALTER TABLE "documents" DROP CONSTRAINT "documents_tenants_tenant", DROP CONSTRAINT "documents_knowledge_bases_documents";
-- reverse: modify "conversations" table
ALTER TABLE "conversations" DROP CONSTRAINT "conversations_tenants_tenant", DROP CONSTRAINT "conversations_knowledge_bases_conversations";
-- reverse: modify "chunks" table
ALTER TABLE "chunks" DROP CONSTRAINT "chunks_tenants_tenant", DROP CONSTRAINT "chunks_knowledge_bases_chunks", DROP CONSTRAINT "chunks_documents_chunks";
-- reverse: modify "audit_events" table
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_tenants_tenant";
-- reverse: modify "attempts" table
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_tenants_tenant", DROP CONSTRAINT "attempts_messages_attempts", DROP CONSTRAINT "attempts_conversations_attempts";
-- reverse: create "tenants" table
DROP TABLE "tenants";
-- reverse: create index "source_tenant_id_owner_id" to table: "sources"
DROP INDEX "source_tenant_id_owner_id";
-- reverse: create index "source_chunk_id" to table: "sources"
DROP INDEX "source_chunk_id";
-- reverse: create index "source_attempt_id_rank" to table: "sources"
DROP INDEX "source_attempt_id_rank";
-- reverse: create "sources" table
DROP TABLE "sources";
-- reverse: create index "messages_attempt_id_key" to table: "messages"
DROP INDEX "messages_attempt_id_key";
-- reverse: create index "message_tenant_id_owner_id" to table: "messages"
DROP INDEX "message_tenant_id_owner_id";
-- reverse: create index "message_conversation_id_sequence_no" to table: "messages"
DROP INDEX "message_conversation_id_sequence_no";
-- reverse: create index "message_conversation_id_client_message_id" to table: "messages"
DROP INDEX "message_conversation_id_client_message_id";
-- reverse: create "messages" table
DROP TABLE "messages";
-- reverse: create index "knowledgebase_tenant_id_name" to table: "knowledge_bases"
DROP INDEX "knowledgebase_tenant_id_name";
-- reverse: create "knowledge_bases" table
DROP TABLE "knowledge_bases";
-- reverse: create index "feedback_tenant_id_rating_created_at" to table: "feedbacks"
DROP INDEX "feedback_tenant_id_rating_created_at";
-- reverse: create index "feedback_tenant_id_owner_id" to table: "feedbacks"
DROP INDEX "feedback_tenant_id_owner_id";
-- reverse: create index "feedback_tenant_id_created_at" to table: "feedbacks"
DROP INDEX "feedback_tenant_id_created_at";
-- reverse: create index "feedback_attempt_id_user_id" to table: "feedbacks"
DROP INDEX "feedback_attempt_id_user_id";
-- reverse: create "feedbacks" table
DROP TABLE "feedbacks";
-- reverse: create index "documentgrant_tenant_id_principal_kind_principal" to table: "document_grants"
DROP INDEX "documentgrant_tenant_id_principal_kind_principal";
-- reverse: create index "documentgrant_document_id_principal_kind_principal" to table: "document_grants"
DROP INDEX "documentgrant_document_id_principal_kind_principal";
-- reverse: create "document_grants" table
DROP TABLE "document_grants";
-- reverse: create index "document_tenant_id_visibility" to table: "documents"
DROP INDEX "document_tenant_id_visibility";
-- reverse: create index "document_knowledge_base_id_title" to table: "documents"
DROP INDEX "document_knowledge_base_id_title";
-- reverse: create "documents" table
DROP TABLE "documents";
-- reverse: create index "conversation_tenant_id_user_id_status_updated_at" to table: "conversations"
DROP INDEX "conversation_tenant_id_user_id_status_updated_at";
-- reverse: create index "conversation_tenant_id_created_at" to table: "conversations"
DROP INDEX "conversation_tenant_id_created_at";
-- reverse: create index "conversation_status_deleted_at" to table: "conversations"
DROP INDEX "conversation_status_deleted_at";
-- reverse: create "conversations" table
DROP TABLE "conversations";
-- reverse: create index "chunks_embedding_hnsw" to table: "chunks"
DROP INDEX "chunks_embedding_hnsw";
-- reverse: create index "chunk_knowledge_base_id" to table: "chunks"
DROP INDEX "chunk_knowledge_base_id";
-- reverse: create index "chunk_document_id_ordinal" to table: "chunks"
DROP INDEX "chunk_document_id_ordinal";
-- reverse: create "chunks" table
DROP TABLE "chunks";
-- reverse: create index "auditevent_tenant_id_target_type_target_id" to table: "audit_events"
DROP INDEX "auditevent_tenant_id_target_type_target_id";
-- reverse: create index "auditevent_tenant_id_at" to table: "audit_events"
DROP INDEX "auditevent_tenant_id_at";
-- reverse: create "audit_events" table
DROP TABLE "audit_events";
-- reverse: create index "attempt_user_message_id" to table: "attempts"
DROP INDEX "attempt_user_message_id";
-- reverse: create index "attempt_tenant_id_owner_id" to table: "attempts"
DROP INDEX "attempt_tenant_id_owner_id";
-- reverse: create index "attempt_tenant_id_created_at" to table: "attempts"
DROP INDEX "attempt_tenant_id_created_at";
-- reverse: create index "attempt_status_lease_expires_at" to table: "attempts"
DROP INDEX "attempt_status_lease_expires_at";
-- reverse: create index "attempt_one_pending_per_conversation" to table: "attempts"
DROP INDEX "attempt_one_pending_per_conversation";
-- reverse: create index "attempt_conversation_id_created_at" to table: "attempts"
DROP INDEX "attempt_conversation_id_created_at";
-- reverse: create index "attempt_conversation_id_client_request_id" to table: "attempts"
DROP INDEX "attempt_conversation_id_client_request_id";
-- reverse: create "attempts" table
DROP TABLE "attempts";
