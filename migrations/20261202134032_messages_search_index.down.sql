DROP INDEX CONCURRENTLY IF EXISTS "messages_search_tokens_gin";
