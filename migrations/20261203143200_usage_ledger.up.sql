-- create "usage_counters" table
CREATE TABLE "usage_counters" ("id" uuid NOT NULL, "tenant_id" character varying NOT NULL, "user_id" character varying NOT NULL, "period" character varying NOT NULL, "period_start" timestamptz NOT NULL, "used" bigint NOT NULL DEFAULT 0, "reserved" bigint NOT NULL DEFAULT 0, "updated_at" timestamptz NOT NULL, PRIMARY KEY ("id"));
-- create index "usagecounter_tenant_id_user_id_period_period_start" to table: "usage_counters"
CREATE UNIQUE INDEX "usagecounter_tenant_id_user_id_period_period_start" ON "usage_counters" ("tenant_id", "user_id", "period", "period_start");
-- create "usage_entries" table
CREATE TABLE "usage_entries" ("id" uuid NOT NULL, "kind" character varying NOT NULL, "user_id" character varying NOT NULL, "attempt_id" uuid NULL, "purpose" character varying NOT NULL, "model" character varying NOT NULL DEFAULT '', "profile" character varying NULL, "prompt_tokens" bigint NOT NULL DEFAULT 0, "completion_tokens" bigint NOT NULL DEFAULT 0, "cost_micros" bigint NOT NULL DEFAULT 0, "period" character varying NOT NULL DEFAULT '', "period_start" timestamptz NULL, "created_at" timestamptz NOT NULL, "tenant_id" character varying NOT NULL, "reservation_id" uuid NULL, PRIMARY KEY ("id"), CONSTRAINT "usage_entries_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "usage_entries_usage_entries_closed_by" FOREIGN KEY ("reservation_id") REFERENCES "usage_entries" ("id") ON UPDATE NO ACTION ON DELETE SET NULL);
-- create index "usage_entries_reservation_id_key" to table: "usage_entries"
CREATE UNIQUE INDEX "usage_entries_reservation_id_key" ON "usage_entries" ("reservation_id");
-- create index "usageentry_attempt_id" to table: "usage_entries"
CREATE INDEX "usageentry_attempt_id" ON "usage_entries" ("attempt_id");
-- create index "usageentry_tenant_id_created_at" to table: "usage_entries"
CREATE INDEX "usageentry_tenant_id_created_at" ON "usage_entries" ("tenant_id", "created_at");
-- create index "usageentry_tenant_id_user_id_created_at" to table: "usage_entries"
CREATE INDEX "usageentry_tenant_id_user_id_created_at" ON "usage_entries" ("tenant_id", "user_id", "created_at");
