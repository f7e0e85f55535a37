-- create index "message_parent_id_sequence_no" to table: "messages", without
-- blocking writes (its own file: CONCURRENTLY cannot run in a transaction).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "message_parent_id_sequence_no" ON "messages" ("parent_id", "sequence_no");
