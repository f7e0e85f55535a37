-- create "attempts" table
CREATE TABLE "attempts" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "client_request_id" character varying NULL, "status" character varying NOT NULL DEFAULT 'PENDING', "original_question" text NOT NULL, "standalone_question" text NULL, "requires_history" boolean NOT NULL DEFAULT false, "answer" text NOT NULL DEFAULT '', "checkpoint_seq" bigint NOT NULL DEFAULT 0, "checkpoint_at" timestamptz NULL, "refused" boolean NOT NULL DEFAULT false, "refusal_reason" character varying NULL, "failure_code" character varying NULL, "failure_message" text NULL, "model" character varying NULL, "prompt_tokens" bigint NOT NULL DEFAULT 0, "completion_tokens" bigint NOT NULL DEFAULT 0, "total_tokens" bigint NOT NULL DEFAULT 0, "context_manifest" jsonb NULL, "summary_version" bigint NOT NULL DEFAULT 0, "trace_id" character varying NOT NULL DEFAULT '', "started_at" timestamptz NOT NULL, "first_token_at" timestamptz NULL, "completed_at" timestamptz NULL, "lease_owner" character varying NULL, "lease_expires_at" timestamptz NULL, "tenant_id" character varying NOT NULL, "retry_of_id" uuid NULL, "conversation_id" uuid NOT NULL, "user_message_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "attempts_attempts_retries" FOREIGN KEY ("retry_of_id") REFERENCES "attempts" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, CONSTRAINT "attempt_status_check" CHECK ((status)::text = ANY ((ARRAY['PENDING'::character varying, 'COMPLETED'::character varying, 'FAILED'::character varying])::text[])));
-- create index "attempt_conversation_id_client_request_id" to table: "attempts"
CREATE UNIQUE INDEX "attempt_conversation_id_client_request_id" ON "attempts" ("conversation_id", "client_request_id");
-- create index "attempt_conversation_id_created_at" to table: "attempts"
CREATE INDEX "attempt_conversation_id_created_at" ON "attempts" ("conversation_id", "created_at");
-- create index "attempt_one_pending_per_conversation" to table: "attempts"
CREATE UNIQUE INDEX "attempt_one_pending_per_conversation" ON "attempts" ("conversation_id") WHERE ((status)::text = 'PENDING'::text);
-- create index "attempt_status_lease_expires_at" to table: "attempts"
CREATE INDEX "attempt_status_lease_expires_at" ON "attempts" ("status", "lease_expires_at");
-- create index "attempt_tenant_id_created_at" to table: "attempts"
CREATE INDEX "attempt_tenant_id_created_at" ON "attempts" ("tenant_id", "created_at");
-- create index "attempt_tenant_id_owner_id" to table: "attempts"
CREATE INDEX "attempt_tenant_id_owner_id" ON "attempts" ("tenant_id", "owner_id");
-- create index "attempt_user_message_id" to table: "attempts"
CREATE INDEX "attempt_user_message_id" ON "attempts" ("user_message_id");
-- create "audit_events" table
CREATE TABLE "audit_events" ("id" uuid NOT NULL, "actor" character varying NOT NULL, "action" character varying NOT NULL, "target_type" character varying NOT NULL, "target_id" character varying NOT NULL, "reason" text NOT NULL DEFAULT '', "metadata" jsonb NULL, "at" timestamptz NOT NULL, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"));
-- create index "auditevent_tenant_id_at" to table: "audit_events"
CREATE INDEX "auditevent_tenant_id_at" ON "audit_events" ("tenant_id", "at");
-- create index "auditevent_tenant_id_target_type_target_id" to table: "audit_events"
CREATE INDEX "auditevent_tenant_id_target_type_target_id" ON "audit_events" ("tenant_id", "target_type", "target_id");
-- create "chunks" table
CREATE TABLE "chunks" ("id" uuid NOT NULL, "ordinal" bigint NOT NULL, "content" text NOT NULL, "token_count" bigint NOT NULL, "embedding" vector(1024) NOT NULL, "tenant_id" character varying NOT NULL, "document_id" uuid NOT NULL, "knowledge_base_id" uuid NOT NULL, PRIMARY KEY ("id"));
-- create index "chunk_document_id_ordinal" to table: "chunks"
CREATE UNIQUE INDEX "chunk_document_id_ordinal" ON "chunks" ("document_id", "ordinal");
-- create index "chunk_knowledge_base_id" to table: "chunks"
CREATE INDEX "chunk_knowledge_base_id" ON "chunks" ("knowledge_base_id");
-- create index "chunks_embedding_hnsw" to table: "chunks"
CREATE INDEX "chunks_embedding_hnsw" ON "chunks" USING hnsw ("embedding" vector_cosine_ops);
-- create "conversations" table
CREATE TABLE "conversations" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" character varying NOT NULL, "title" character varying NOT NULL DEFAULT '', "title_source" character varying NOT NULL DEFAULT 'QUESTION', "summary" text NOT NULL DEFAULT '', "summary_message_sequence" bigint NOT NULL DEFAULT 0, "summary_version" bigint NOT NULL DEFAULT 0, "status" character varying NOT NULL DEFAULT 'ACTIVE', "version" bigint NOT NULL DEFAULT 0, "last_sequence_no" bigint NOT NULL DEFAULT 0, "expires_at" timestamptz NOT NULL, "absolute_expires_at" timestamptz NOT NULL, "deleted_at" timestamptz NULL, "tenant_id" character varying NOT NULL, "knowledge_base_id" uuid NOT NULL, PRIMARY KEY ("id"));
-- create index "conversation_status_deleted_at" to table: "conversations"
CREATE INDEX "conversation_status_deleted_at" ON "conversations" ("status", "deleted_at");
-- create index "conversation_tenant_id_created_at" to table: "conversations"
CREATE INDEX "conversation_tenant_id_created_at" ON "conversations" ("tenant_id", "created_at");
-- create index "conversation_tenant_id_user_id_status_updated_at" to table: "conversations"
CREATE INDEX "conversation_tenant_id_user_id_status_updated_at" ON "conversations" ("tenant_id", "user_id", "status", "updated_at");
-- create "documents" table
CREATE TABLE "documents" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "title" character varying NOT NULL, "source_uri" character varying NOT NULL DEFAULT '', "version" bigint NOT NULL DEFAULT 1, "checksum" character varying NOT NULL DEFAULT '', "status" character varying NOT NULL DEFAULT 'PROCESSING', "visibility" character varying NOT NULL DEFAULT 'TENANT', "tenant_id" character varying NOT NULL, "knowledge_base_id" uuid NOT NULL, PRIMARY KEY ("id"));
-- create index "document_knowledge_base_id_title" to table: "documents"
CREATE INDEX "document_knowledge_base_id_title" ON "documents" ("knowledge_base_id", "title");
-- create index "document_tenant_id_visibility" to table: "documents"
CREATE INDEX "document_tenant_id_visibility" ON "documents" ("tenant_id", "visibility");
-- create "document_grants" table
CREATE TABLE "document_grants" ("id" uuid NOT NULL, "principal_kind" character varying NOT NULL, "principal" character varying NOT NULL, "document_id" uuid NOT NULL, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"));
-- create index "documentgrant_document_id_principal_kind_principal" to table: "document_grants"
CREATE UNIQUE INDEX "documentgrant_document_id_principal_kind_principal" ON "document_grants" ("document_id", "principal_kind", "principal");
-- create index "documentgrant_tenant_id_principal_kind_principal" to table: "document_grants"
CREATE INDEX "documentgrant_tenant_id_principal_kind_principal" ON "document_grants" ("tenant_id", "principal_kind", "principal");
-- create "feedbacks" table
CREATE TABLE "feedbacks" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" character varying NOT NULL, "rating" character varying NOT NULL, "reason_codes" jsonb NULL, "comment" text NULL, "attempt_id" uuid NOT NULL, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"));
-- create index "feedback_attempt_id_user_id" to table: "feedbacks"
CREATE UNIQUE INDEX "feedback_attempt_id_user_id" ON "feedbacks" ("attempt_id", "user_id");
-- create index "feedback_tenant_id_created_at" to table: "feedbacks"
CREATE INDEX "feedback_tenant_id_created_at" ON "feedbacks" ("tenant_id", "created_at");
-- create index "feedback_tenant_id_owner_id" to table: "feedbacks"
CREATE INDEX "feedback_tenant_id_owner_id" ON "feedbacks" ("tenant_id", "owner_id");
-- create index "feedback_tenant_id_rating_created_at" to table: "feedbacks"
CREATE INDEX "feedback_tenant_id_rating_created_at" ON "feedbacks" ("tenant_id", "rating", "created_at");
-- create "knowledge_bases" table
CREATE TABLE "knowledge_bases" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "description" text NOT NULL DEFAULT '', "embedding_model" character varying NOT NULL, "embedding_dimensions" bigint NOT NULL, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"));
-- create index "knowledgebase_tenant_id_name" to table: "knowledge_bases"
CREATE UNIQUE INDEX "knowledgebase_tenant_id_name" ON "knowledge_bases" ("tenant_id", "name");
-- create "messages" table
CREATE TABLE "messages" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "sequence_no" bigint NOT NULL, "role" character varying NOT NULL, "content" text NOT NULL, "standalone_question" text NULL, "client_message_id" character varying NULL, "model" character varying NULL, "prompt_tokens" bigint NULL, "completion_tokens" bigint NULL, "trace_id" character varying NULL, "created_at" timestamptz NOT NULL, "attempt_id" uuid NULL, "conversation_id" uuid NOT NULL, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "message_role_check" CHECK ((role)::text = ANY ((ARRAY['USER'::character varying, 'ASSISTANT'::character varying, 'SYSTEM'::character varying])::text[])));
-- create index "message_conversation_id_client_message_id" to table: "messages"
CREATE UNIQUE INDEX "message_conversation_id_client_message_id" ON "messages" ("conversation_id", "client_message_id");
-- create index "message_conversation_id_sequence_no" to table: "messages"
CREATE UNIQUE INDEX "message_conversation_id_sequence_no" ON "messages" ("conversation_id", "sequence_no");
-- create index "message_tenant_id_owner_id" to table: "messages"
CREATE INDEX "message_tenant_id_owner_id" ON "messages" ("tenant_id", "owner_id");
-- create index "messages_attempt_id_key" to table: "messages"
CREATE UNIQUE INDEX "messages_attempt_id_key" ON "messages" ("attempt_id");
-- create "sources" table
CREATE TABLE "sources" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "label" character varying NOT NULL, "rank" bigint NOT NULL, "score" double precision NOT NULL, "snippet" text NOT NULL, "document_title" character varying NOT NULL, "document_version" bigint NOT NULL, "cited" boolean NOT NULL DEFAULT false, "attempt_id" uuid NOT NULL, "tenant_id" character varying NOT NULL, "chunk_id" uuid NULL, "document_id" uuid NULL, PRIMARY KEY ("id"));
-- create index "source_attempt_id_rank" to table: "sources"
CREATE UNIQUE INDEX "source_attempt_id_rank" ON "sources" ("attempt_id", "rank");
-- create index "source_chunk_id" to table: "sources"
CREATE INDEX "source_chunk_id" ON "sources" ("chunk_id");
-- create index "source_tenant_id_owner_id" to table: "sources"
CREATE INDEX "source_tenant_id_owner_id" ON "sources" ("tenant_id", "owner_id");
-- create "tenants" table
CREATE TABLE "tenants" ("id" character varying NOT NULL, "name" character varying NOT NULL, "settings" jsonb NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, PRIMARY KEY ("id"));
-- modify "attempts" table
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_conversations_attempts" FOREIGN KEY ("conversation_id") REFERENCES "conversations" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "attempts_messages_attempts" FOREIGN KEY ("user_message_id") REFERENCES "messages" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "attempts_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "audit_events" table
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "chunks" table
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_documents_chunks" FOREIGN KEY ("document_id") REFERENCES "documents" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "chunks_knowledge_bases_chunks" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "chunks_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "conversations" table
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_knowledge_bases_conversations" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, ADD CONSTRAINT "conversations_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "documents" table
ALTER TABLE "documents" ADD CONSTRAINT "documents_knowledge_bases_documents" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "documents_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "document_grants" table
ALTER TABLE "document_grants" ADD CONSTRAINT "document_grants_documents_grants" FOREIGN KEY ("document_id") REFERENCES "documents" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "document_grants_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "feedbacks" table
ALTER TABLE "feedbacks" ADD CONSTRAINT "feedbacks_attempts_feedback" FOREIGN KEY ("attempt_id") REFERENCES "attempts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "feedbacks_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "knowledge_bases" table
ALTER TABLE "knowledge_bases" ADD CONSTRAINT "knowledge_bases_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "messages" table
ALTER TABLE "messages" ADD CONSTRAINT "messages_attempts_assistant_message" FOREIGN KEY ("attempt_id") REFERENCES "attempts" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, ADD CONSTRAINT "messages_conversations_messages" FOREIGN KEY ("conversation_id") REFERENCES "conversations" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "messages_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
-- modify "sources" table
ALTER TABLE "sources" ADD CONSTRAINT "sources_attempts_sources" FOREIGN KEY ("attempt_id") REFERENCES "attempts" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, ADD CONSTRAINT "sources_chunks_chunk" FOREIGN KEY ("chunk_id") REFERENCES "chunks" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, ADD CONSTRAINT "sources_documents_document" FOREIGN KEY ("document_id") REFERENCES "documents" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, ADD CONSTRAINT "sources_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION;
