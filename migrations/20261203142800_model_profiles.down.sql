-- reverse: create index "modelprofile_tenant_id_name" to table: "model_profiles"
DROP INDEX "modelprofile_tenant_id_name";
-- reverse: create "model_profiles" table
DROP TABLE "model_profiles";
-- reverse: modify "conversations" table
ALTER TABLE "conversations" DROP COLUMN "model_parameters", DROP COLUMN "model_profile_id";
-- reverse: modify "attempts" table
ALTER TABLE "attempts" DROP COLUMN "model_parameters", DROP COLUMN "model_profile_id";
