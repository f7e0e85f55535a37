-- reverse: create index "persistedquery_last_used_at" to table: "persisted_queries"
DROP INDEX "persistedquery_last_used_at";
-- reverse: create "persisted_queries" table
DROP TABLE "persisted_queries";
