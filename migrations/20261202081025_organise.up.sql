-- create "folders" table
CREATE TABLE "folders" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" character varying NOT NULL, "name" character varying NOT NULL, "position" bigint NOT NULL DEFAULT 0, "tenant_id" character varying NOT NULL, "parent_id" uuid NULL, PRIMARY KEY ("id"), CONSTRAINT "folders_folders_children" FOREIGN KEY ("parent_id") REFERENCES "folders" ("id") ON UPDATE NO ACTION ON DELETE SET NULL, CONSTRAINT "folders_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "folder_tenant_id_user_id_parent_id_position" to table: "folders"
CREATE INDEX "folder_tenant_id_user_id_parent_id_position" ON "folders" ("tenant_id", "user_id", "parent_id", "position");
-- modify "conversations" table
ALTER TABLE "conversations" ADD COLUMN "pinned_at" timestamptz NULL, ADD COLUMN "metadata" jsonb NULL, ADD COLUMN "temporary_expires_at" timestamptz NULL, ADD COLUMN "folder_id" uuid NULL, ADD CONSTRAINT "conversations_folders_conversations" FOREIGN KEY ("folder_id") REFERENCES "folders" ("id") ON UPDATE NO ACTION ON DELETE SET NULL;
-- create "tags" table
CREATE TABLE "tags" ("id" uuid NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "user_id" character varying NOT NULL, "name" character varying NOT NULL, "color" character varying NULL, "tenant_id" character varying NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "tags_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "tag_tenant_id_user_id_name" to table: "tags"
CREATE UNIQUE INDEX "tag_tenant_id_user_id_name" ON "tags" ("tenant_id", "user_id", "name");
-- create "conversation_tags" table
CREATE TABLE "conversation_tags" ("id" uuid NOT NULL, "owner_id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "tenant_id" character varying NOT NULL, "conversation_id" uuid NOT NULL, "tag_id" uuid NOT NULL, PRIMARY KEY ("id"), CONSTRAINT "conversation_tags_conversations_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "conversation_tags_tags_tag" FOREIGN KEY ("tag_id") REFERENCES "tags" ("id") ON UPDATE NO ACTION ON DELETE CASCADE, CONSTRAINT "conversation_tags_tenants_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON UPDATE NO ACTION ON DELETE NO ACTION);
-- create index "conversationtag_conversation_id_tag_id" to table: "conversation_tags"
CREATE UNIQUE INDEX "conversationtag_conversation_id_tag_id" ON "conversation_tags" ("conversation_id", "tag_id");
-- create index "conversationtag_tag_id" to table: "conversation_tags"
CREATE INDEX "conversationtag_tag_id" ON "conversation_tags" ("tag_id");
-- create index "conversationtag_tenant_id_owner_id" to table: "conversation_tags"
CREATE INDEX "conversationtag_tenant_id_owner_id" ON "conversation_tags" ("tenant_id", "owner_id");
