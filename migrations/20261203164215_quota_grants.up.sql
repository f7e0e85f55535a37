-- modify "usage_counters" table
ALTER TABLE "usage_counters" ADD COLUMN "granted" bigint NOT NULL DEFAULT 0;
-- create "user_quota" table
CREATE TABLE "user_quota" ("id" uuid NOT NULL, "user_id" character varying NOT NULL, "tokens" bigint NOT NULL, "updated_by" character varying NOT NULL DEFAULT '', "updated_at" timestamptz NOT NULL, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "user_quota_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "userquota_tenant_id_user_id" to table: "user_quota"
CREATE UNIQUE INDEX "userquota_tenant_id_user_id" ON "user_quota" ("tenant_id", "user_id");
