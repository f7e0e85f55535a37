-- reverse: create index "usageentry_tenant_id_user_id_created_at" to table: "usage_entries"
DROP INDEX "usageentry_tenant_id_user_id_created_at";
-- reverse: create index "usageentry_tenant_id_created_at" to table: "usage_entries"
DROP INDEX "usageentry_tenant_id_created_at";
-- reverse: create index "usageentry_attempt_id" to table: "usage_entries"
DROP INDEX "usageentry_attempt_id";
-- reverse: create index "usage_entries_reservation_id_key" to table: "usage_entries"
DROP INDEX "usage_entries_reservation_id_key";
-- reverse: create "usage_entries" table
DROP TABLE "usage_entries";
-- reverse: create index "usagecounter_tenant_id_user_id_period_period_start" to table: "usage_counters"
DROP INDEX "usagecounter_tenant_id_user_id_period_period_start";
-- reverse: create "usage_counters" table
DROP TABLE "usage_counters";
