-- reverse: modify "messages" table
ALTER TABLE "messages" DROP COLUMN "attachment_ids";
