-- modify "share_links" table
ALTER TABLE "share_links" ADD COLUMN "included_attempt_ids" jsonb NULL, ADD COLUMN "restricted_answers_chosen_at" timestamptz NULL;
