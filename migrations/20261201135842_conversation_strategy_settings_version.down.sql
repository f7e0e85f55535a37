-- reverse: modify "tenants" table
ALTER TABLE "tenants" DROP COLUMN "settings_version";
-- reverse: modify "conversations" table
ALTER TABLE "conversations" DROP COLUMN "history_strategy";
