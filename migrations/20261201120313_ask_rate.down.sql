-- reverse: create index "askrate_tenant_id_user_id" to table: "ask_rates"
DROP INDEX "askrate_tenant_id_user_id";
-- reverse: create "ask_rates" table
DROP TABLE "ask_rates";
