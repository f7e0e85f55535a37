-- reverse: create index "sharelink_tenant_id_owner_id_created_at" to table: "share_links"
DROP INDEX "sharelink_tenant_id_owner_id_created_at";
-- reverse: create index "sharelink_conversation_id" to table: "share_links"
DROP INDEX "sharelink_conversation_id";
-- reverse: create index "share_links_token_hash_key" to table: "share_links"
DROP INDEX "share_links_token_hash_key";
-- reverse: create "share_links" table
DROP TABLE "share_links";
