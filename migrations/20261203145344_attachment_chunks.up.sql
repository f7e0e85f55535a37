-- create "attachment_chunks" table
CREATE TABLE "attachment_chunks" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "conversation_id" uuid NOT NULL, "ordinal" bigint NOT NULL, "content" text NOT NULL, "token_count" bigint NOT NULL, "embedding" vector(1024) NOT NULL, "tenant_id" character varying NOT NULL, "attachment_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "attachment_chunks_attachments_attachment" FOREIGN KEY ("attachment_id") REFERENCES "attachments" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "attachment_chunks_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "attachmentchunk_attachment_id_ordinal" to table: "attachment_chunks"
CREATE UNIQUE INDEX "attachmentchunk_attachment_id_ordinal" ON "attachment_chunks" ("attachment_id", "ordinal");
-- create index "attachmentchunk_conversation_id" to table: "attachment_chunks"
CREATE INDEX "attachmentchunk_conversation_id" ON "attachment_chunks" ("conversation_id");
-- create index "attachmentchunk_tenant_id_owner_id" to table: "attachment_chunks"
CREATE INDEX "attachmentchunk_tenant_id_owner_id" ON "attachment_chunks" ("tenant_id", "owner_id");
-- modify "sources" table
ALTER TABLE "sources" ADD COLUMN "kind" character varying NOT NULL DEFAULT 'DOCUMENT', ADD COLUMN "attachment_id" uuid NULL, ADD CONSTRAINT "sources_attachments_attachment" FOREIGN KEY ("attachment_id") REFERENCES "attachments" ("id") ON UPDATE NO ACTION ON DELETE SET NULL;
