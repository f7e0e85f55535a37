-- create "ask_rates" table
CREATE TABLE "ask_rates" ("id" uuid NOT NULL, "tenant_id" character varying NOT NULL, "user_id" character varying NOT NULL, "tat" bigint NOT NULL, PRIMARY KEY ("id"));
-- create index "askrate_tenant_id_user_id" to table: "ask_rates"
CREATE UNIQUE INDEX "askrate_tenant_id_user_id" ON "ask_rates" ("tenant_id", "user_id");
