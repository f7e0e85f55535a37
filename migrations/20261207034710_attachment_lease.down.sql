-- reverse: create index "attachment_status_lease_until" to table: "attachments"
DROP INDEX "attachment_status_lease_until";
-- reverse: modify "attachments" table
ALTER TABLE "attachments" DROP COLUMN "lease_until", DROP COLUMN "attempts";
