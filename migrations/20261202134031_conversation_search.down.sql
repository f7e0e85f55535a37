-- reverse: modify "messages" table
ALTER TABLE "messages" DROP COLUMN "search_tokens";
-- reverse: modify "conversations" table
ALTER TABLE "conversations" DROP COLUMN "search_tokens";
