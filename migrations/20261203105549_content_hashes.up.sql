-- modify "attempts" table
ALTER TABLE "attempts" ADD COLUMN "reask_of_id" uuid NULL, ADD CONSTRAINT "attempts_attempts_reasks" FOREIGN KEY ("reask_of_id") REFERENCES "attempts" ("id") ON UPDATE NO ACTION ON DELETE SET NULL;
-- modify "chunks" table
ALTER TABLE "chunks" ADD COLUMN "content_hash" character varying NULL;
-- create index "chunk_document_id_content_hash" to table: "chunks"
CREATE INDEX "chunk_document_id_content_hash" ON "chunks" ("document_id", "content_hash");
-- modify "sources" table
ALTER TABLE "sources" ADD COLUMN "chunk_hash" character varying NULL;
-- backfill: the content hash of every chunk written before the column
-- (internal/contenthash: SHA-256 hex of the UTF-8 text)
UPDATE "chunks" SET "content_hash" = encode(sha256(convert_to("content", 'UTF8')), 'hex') WHERE "content_hash" IS NULL;
-- backfill: each source's cited chunk hash, where its chunk still exists
UPDATE "sources" AS s SET "chunk_hash" = c."content_hash" FROM "chunks" AS c WHERE s."chunk_id" = c."id" AND s."chunk_hash" IS NULL;
