-- reverse: modify "sources" table
ALTER TABLE "sources" DROP CONSTRAINT "sources_attachments_attachment", DROP COLUMN "attachment_id", DROP COLUMN "kind";
-- reverse: create index "attachmentchunk_tenant_id_owner_id" to table: "attachment_chunks"
DROP INDEX "attachmentchunk_tenant_id_owner_id";
-- reverse: create index "attachmentchunk_conversation_id" to table: "attachment_chunks"
DROP INDEX "attachmentchunk_conversation_id";
-- reverse: create index "attachmentchunk_attachment_id_ordinal" to table: "attachment_chunks"
DROP INDEX "attachmentchunk_attachment_id_ordinal";
-- reverse: create "attachment_chunks" table
DROP TABLE "attachment_chunks";
