DROP INDEX CONCURRENTLY IF EXISTS "message_parent_id_sequence_no";
