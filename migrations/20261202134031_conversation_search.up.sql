-- modify "conversations" table
ALTER TABLE "conversations" ADD COLUMN "search_tokens" tsvector NULL;
-- modify "messages" table
ALTER TABLE "messages" ADD COLUMN "search_tokens" tsvector NULL;
