-- create "search_entries" table
CREATE TABLE "search_entries" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "message_id" uuid NULL, "kind" character varying NOT NULL, "at" timestamptz NOT NULL, "rank" bigint NOT NULL, "search_tokens" tsvector NOT NULL, "tenant_id" character varying NOT NULL, "conversation_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "search_entries_conversations_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "search_entries_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "search_entries_search_tokens_gin" to table: "search_entries"
CREATE INDEX "search_entries_search_tokens_gin" ON "search_entries" USING gin ("search_tokens");
-- create index "searchentry_conversation_id_kind" to table: "search_entries"
CREATE INDEX "searchentry_conversation_id_kind" ON "search_entries" ("conversation_id", "kind");
-- create index "searchentry_message_id" to table: "search_entries"
CREATE UNIQUE INDEX "searchentry_message_id" ON "search_entries" ("message_id");

-- copy the entries of the rows indexed so far (their tokens, plus the
-- tenant's term); internal/convsearch Backfill indexes the rest.
INSERT INTO "search_entries" ("id", "owner_id", "message_id", "kind", "at", "rank", "search_tokens", "tenant_id", "conversation_id")
SELECT gen_random_uuid(), "owner_id", "id", 'MESSAGE', "created_at",
  10000000000000000 + floor(extract(epoch FROM "created_at") * 1000000)::bigint,
  "search_tokens" || array_to_tsvector(ARRAY['t:' || "tenant_id"]), "tenant_id", "conversation_id"
FROM "messages" WHERE "search_tokens" IS NOT NULL;
INSERT INTO "search_entries" ("id", "owner_id", "message_id", "kind", "at", "rank", "search_tokens", "tenant_id", "conversation_id")
SELECT gen_random_uuid(), "user_id", NULL, 'TITLE', "updated_at",
  20000000000000000 + floor(extract(epoch FROM "updated_at") * 1000000)::bigint,
  "search_tokens" || array_to_tsvector(ARRAY['t:' || "tenant_id"]), "tenant_id", "id"
FROM "conversations" WHERE "search_tokens" IS NOT NULL AND "title" <> '';
-- modify "conversations" table
ALTER TABLE "conversations" DROP COLUMN "search_tokens";
-- modify "messages" table
ALTER TABLE "messages" DROP COLUMN "search_tokens";
