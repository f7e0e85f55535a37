-- reverse: create index "supportgrant_tenant_id_conversation_owner_id_created_at" to table: "support_grants"
DROP INDEX "supportgrant_tenant_id_conversation_owner_id_created_at";
-- reverse: create index "supportgrant_tenant_id_agent_id_created_at" to table: "support_grants"
DROP INDEX "supportgrant_tenant_id_agent_id_created_at";
-- reverse: create index "supportgrant_conversation_id_agent_id_status" to table: "support_grants"
DROP INDEX "supportgrant_conversation_id_agent_id_status";
-- reverse: create "support_grants" table
DROP TABLE "support_grants";
