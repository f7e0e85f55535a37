-- create index "conversation_tenant_id_user_id_folder_id" to table: "conversations", without
-- blocking writes (its own file: CONCURRENTLY cannot run in a transaction).
CREATE INDEX CONCURRENTLY IF NOT EXISTS "conversation_tenant_id_user_id_folder_id" ON "conversations" ("tenant_id", "user_id", "folder_id");
