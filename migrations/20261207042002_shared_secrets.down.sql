-- reverse: create "shared_secrets" table
DROP TABLE "shared_secrets";
