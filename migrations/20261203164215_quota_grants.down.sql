-- reverse: create index "userquota_tenant_id_user_id" to table: "user_quota"
DROP INDEX "userquota_tenant_id_user_id";
-- reverse: create "user_quota" table
DROP TABLE "user_quota";
-- reverse: modify "usage_counters" table
ALTER TABLE "usage_counters" DROP COLUMN "granted";
