-- reverse: modify "messages" table
ALTER TABLE "messages" DROP COLUMN "path_summary_version", DROP COLUMN "path_summary", DROP COLUMN "edited_from_id", DROP COLUMN "depth", DROP COLUMN "parent_id";
-- reverse: create index "conversation_tenant_id_user_id_fork_request_id" to table: "conversations"
DROP INDEX "conversation_tenant_id_user_id_fork_request_id";
-- reverse: modify "conversations" table
ALTER TABLE "conversations" DROP COLUMN "fork_request_id", DROP COLUMN "forked_from_message_id", DROP COLUMN "current_leaf_id";
