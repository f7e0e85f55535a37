-- create index "messages_search_tokens_gin" to table: "messages", without
-- blocking writes (its own file: CONCURRENTLY cannot run in a transaction).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_search_tokens_gin" ON "messages" USING gin ("search_tokens");
