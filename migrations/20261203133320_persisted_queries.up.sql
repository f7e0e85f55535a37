-- create "persisted_queries" table
CREATE TABLE "persisted_queries" ("id" character varying NOT NULL, "query" text NOT NULL, "created_at" timestamptz NOT NULL, "last_used_at" timestamptz NOT NULL, PRIMARY KEY ("id"));
-- create index "persistedquery_last_used_at" to table: "persisted_queries"
CREATE INDEX "persistedquery_last_used_at" ON "persisted_queries" ("last_used_at");
