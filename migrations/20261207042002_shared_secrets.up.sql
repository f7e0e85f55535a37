-- create "shared_secrets" table
CREATE TABLE "shared_secrets" ("id" character varying NOT NULL, "secret" character varying NOT NULL, "created_at" timestamptz NOT NULL, PRIMARY KEY ("id"));
