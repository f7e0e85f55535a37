-- modify "conversations" table
ALTER TABLE "conversations" ADD COLUMN "history_strategy" character varying NULL;
-- modify "tenants" table
ALTER TABLE "tenants" ADD COLUMN "settings_version" bigint NOT NULL DEFAULT 0;
