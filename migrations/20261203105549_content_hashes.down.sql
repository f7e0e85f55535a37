-- reverse: modify "sources" table
ALTER TABLE "sources" DROP COLUMN "chunk_hash";
-- reverse: create index "chunk_document_id_content_hash" to table: "chunks"
DROP INDEX "chunk_document_id_content_hash";
-- reverse: modify "chunks" table
ALTER TABLE "chunks" DROP COLUMN "content_hash";
-- reverse: modify "attempts" table
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_attempts_reasks", DROP COLUMN "reask_of_id";
