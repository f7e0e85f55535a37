-- modify "conversations" table
ALTER TABLE "conversations" ADD COLUMN "current_leaf_id" uuid NULL, ADD COLUMN "forked_from_message_id" uuid NULL, ADD COLUMN "fork_request_id" character varying NULL;
-- create index "conversation_tenant_id_user_id_fork_request_id" to table: "conversations"
CREATE UNIQUE INDEX "conversation_tenant_id_user_id_fork_request_id" ON "conversations" ("tenant_id", "user_id", "fork_request_id");
-- modify "messages" table
ALTER TABLE "messages" ADD COLUMN "parent_id" uuid NULL, ADD COLUMN "depth" bigint NOT NULL DEFAULT 0, ADD COLUMN "edited_from_id" uuid NULL, ADD COLUMN "path_summary" text NULL, ADD COLUMN "path_summary_version" bigint NOT NULL DEFAULT 0;
