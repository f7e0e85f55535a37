-- reverse: create index "attachment_tenant_id_owner_id" to table: "attachments"
DROP INDEX "attachment_tenant_id_owner_id";
-- reverse: create index "attachment_conversation_id_created_at" to table: "attachments"
DROP INDEX "attachment_conversation_id_created_at";
-- reverse: create "attachments" table
DROP TABLE "attachments";
