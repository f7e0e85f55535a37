-- modify "messages" table
ALTER TABLE "messages" ADD COLUMN "attachment_ids" jsonb NULL;
