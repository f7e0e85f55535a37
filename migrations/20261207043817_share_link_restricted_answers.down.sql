-- reverse: modify "share_links" table
ALTER TABLE "share_links" DROP COLUMN "restricted_answers_chosen_at", DROP COLUMN "included_attempt_ids";
