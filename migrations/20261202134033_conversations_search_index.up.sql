-- create index "conversations_search_tokens_gin" to table: "conversations", without
-- blocking writes (its own file: CONCURRENTLY cannot run in a transaction).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversations_search_tokens_gin" ON "conversations" USING gin ("search_tokens");
