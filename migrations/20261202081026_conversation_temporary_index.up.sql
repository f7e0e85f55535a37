-- create index "conversation_temporary_expires_at" to table: "conversations", without
-- blocking writes (its own file: CONCURRENTLY cannot run in a transaction).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversation_temporary_expires_at" ON "conversations" ("temporary_expires_at");
