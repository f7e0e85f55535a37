-- reverse: create index "searchentry_message_id" to table: "search_entries"
DROP INDEX "searchentry_message_id";
-- reverse: create index "searchentry_conversation_id_kind" to table: "search_entries"
DROP INDEX "searchentry_conversation_id_kind";
-- reverse: create index "search_entries_search_tokens_gin" to table: "search_entries"
DROP INDEX "search_entries_search_tokens_gin";
-- reverse: create "search_entries" table
DROP TABLE "search_entries";
-- reverse: modify "messages" table
ALTER TABLE "messages" ADD COLUMN "search_tokens" tsvector NULL;
-- reverse: modify "conversations" table
ALTER TABLE "conversations" ADD COLUMN "search_tokens" tsvector NULL;
