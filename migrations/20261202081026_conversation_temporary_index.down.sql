DROP INDEX CONCURRENTLY IF EXISTS "conversation_temporary_expires_at";
