-- create "share_links" table
CREATE TABLE "share_links" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "up_to_message_id" uuid NOT NULL, "path_message_ids" jsonb NOT NULL, "audience" character varying NOT NULL, "users" jsonb NULL, "expires_at" timestamptz NULL, "revoked_at" timestamptz NULL, "token_hash" character varying NOT NULL, "read_count" bigint NOT NULL DEFAULT 0, "last_read_at" timestamptz NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "tenant_id" character varying NOT NULL, "conversation_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "share_links_conversations_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "share_links_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION, CONSTRAINT "share_link_audience_check" CHECK ((audience)::text = ANY ((ARRAY['TENANT'::character varying, 'USERS'::character varying, 'PUBLIC'::character varying])::text[])));
-- create index "share_links_token_hash_key" to table: "share_links"
CREATE UNIQUE INDEX "share_links_token_hash_key" ON "share_links" ("token_hash");
-- create index "sharelink_conversation_id" to table: "share_links"
CREATE INDEX "sharelink_conversation_id" ON "share_links" ("conversation_id");
-- create index "sharelink_tenant_id_owner_id_created_at" to table: "share_links"
CREATE INDEX "sharelink_tenant_id_owner_id_created_at" ON "share_links" ("tenant_id", "owner_id", "created_at");
