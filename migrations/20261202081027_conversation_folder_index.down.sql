DROP INDEX CONCURRENTLY IF EXISTS "conversation_tenant_id_user_id_folder_id";
