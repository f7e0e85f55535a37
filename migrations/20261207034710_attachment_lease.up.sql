-- modify "attachments" table
ALTER TABLE "attachments" ADD COLUMN "attempts" bigint NOT NULL DEFAULT 0, ADD COLUMN "lease_until" timestamptz NULL;
-- create index "attachment_status_lease_until" to table: "attachments"
CREATE INDEX "attachment_status_lease_until" ON "attachments" ("status", "lease_until");
