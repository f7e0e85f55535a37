-- modify "attempts" table
ALTER TABLE "attempts" ADD COLUMN "model_profile_id" uuid NULL, ADD COLUMN "model_parameters" jsonb NULL;
-- modify "conversations" table
ALTER TABLE "conversations" ADD COLUMN "model_profile_id" uuid NULL, ADD COLUMN "model_parameters" jsonb NULL;
-- create "model_profiles" table
CREATE TABLE "model_profiles" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL, "endpoint" character varying NOT NULL, "model" character varying NOT NULL, "context_window" bigint NOT NULL DEFAULT 0, "temperature_min" double precision NOT NULL DEFAULT 0, "temperature_max" double precision NOT NULL DEFAULT 2, "temperature_default" double precision NOT NULL DEFAULT 0.2, "top_p_min" double precision NOT NULL DEFAULT 0, "top_p_max" double precision NOT NULL DEFAULT 1, "top_p_default" double precision NOT NULL DEFAULT 1, "max_answer_tokens_max" bigint NOT NULL DEFAULT 0, "max_answer_tokens_default" bigint NOT NULL DEFAULT 0, "price_input_per_m" bigint NOT NULL DEFAULT 0, "price_output_per_m" bigint NOT NULL DEFAULT 0, "enabled" boolean NOT NULL DEFAULT true, "allowed_groups" jsonb NULL, "is_default" boolean NOT NULL DEFAULT false, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "model_profiles_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "modelprofile_tenant_id_name" to table: "model_profiles"
CREATE UNIQUE INDEX "modelprofile_tenant_id_name" ON "model_profiles" ("tenant_id", "name");
