-- reverse: create index "conversationtag_tenant_id_owner_id" to table: "conversation_tags"
DROP INDEX "conversationtag_tenant_id_owner_id";
-- reverse: create index "conversationtag_tag_id" to table: "conversation_tags"
DROP INDEX "conversationtag_tag_id";
-- reverse: create index "conversationtag_conversation_id_tag_id" to table: "conversation_tags"
DROP INDEX "conversationtag_conversation_id_tag_id";
-- reverse: create "conversation_tags" table
DROP TABLE "conversation_tags";
-- reverse: create index "tag_tenant_id_user_id_name" to table: "tags"
DROP INDEX "tag_tenant_id_user_id_name";
-- reverse: create "tags" table
DROP TABLE "tags";
-- reverse: modify "conversations" table
ALTER TABLE "conversations" DROP CONSTRAINT "conversations_folders_conversations", DROP COLUMN "folder_id", DROP COLUMN "temporary_expires_at", DROP COLUMN "metadata", DROP COLUMN "pinned_at";
-- reverse: create index "folder_tenant_id_user_id_parent_id_position" to table: "folders"
DROP INDEX "folder_tenant_id_user_id_parent_id_position";
-- reverse: create "folders" table
DROP TABLE "folders";
