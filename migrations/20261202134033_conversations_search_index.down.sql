DROP INDEX CONCURRENTLY IF EXISTS "conversations_search_tokens_gin";
