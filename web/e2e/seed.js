// Seeding for the browser budgets test: a fresh PostgreSQL database for a
// server (so that the test can write rows directly), and a conversation
// filled with whole rounds (a question, its COMPLETED attempt and the
// answer message) in bulk, as the provisioning job of
// internal/bench/page.go does. Only the latest answer carries the
// marker "LATEST", so the test can tell when the latest page is shown.
import { execFileSync } from 'node:child_process';

/** psql runs SQL (a script on stdin) against url with psql variables. */
export function psql(url, sql, vars = {}) {
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url];
  for (const [k, v] of Object.entries(vars)) args.push('-v', `${k}=${v}`);
  return execFileSync('psql', args, { input: sql, stdio: ['pipe', 'pipe', 'inherit'] }).toString();
}

/**
 * createDatabase creates a fresh database on the server of adminURL and
 * returns its URL and drop().
 */
export function createDatabase(adminURL) {
  const name = `ragchat_web_budgets_${process.pid}_${Date.now()}`;
  psql(adminURL, `CREATE DATABASE ${name};`);
  const url = new URL(adminURL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => psql(adminURL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE);`) };
}

// The rounds: message 2k-1 is question k, its attempt answered it, and
// message 2k is the answer (linked to the attempt, as the engine writes
// it). Each message's parent is the one before it (a single path, depth =
// sequence_no - 1) and the last answer is the conversation's current leaf.
// Timestamps are one second apart, ending now.
const seedSQL = `
BEGIN;
INSERT INTO messages (id, owner_id, sequence_no, role, content, created_at, conversation_id, tenant_id)
SELECT gen_random_uuid(), c.user_id, 2 * k - 1, 'USER',
       'Question ' || k || ': how large can an uploaded file be in section ' || (k % 20) || '?',
       now() - make_interval(secs => 2 * (:rounds - k) + 2), c.id, c.tenant_id
FROM conversations c, generate_series(1, :rounds) AS k
WHERE c.id = :'conv';
INSERT INTO attempts (id, owner_id, created_at, updated_at, status, original_question, answer,
                      model, started_at, first_token_at, completed_at, tenant_id, conversation_id, user_message_id)
SELECT gen_random_uuid(), m.owner_id, m.created_at, m.created_at, 'COMPLETED', m.content,
       'Answer ' || (m.sequence_no + 1) / 2 || CASE WHEN m.sequence_no = 2 * :rounds - 1 THEN ' LATEST' ELSE '' END ||
       ': uploads are limited to 20MB per file. ' || repeat('Larger files are refused with ERR_FILE_TOO_LARGE before any byte is stored. ', 4),
       'offline', m.created_at, m.created_at, m.created_at, m.tenant_id, m.conversation_id, m.id
FROM messages m
WHERE m.conversation_id = :'conv' AND m.role = 'USER';
INSERT INTO messages (id, owner_id, sequence_no, role, content, created_at, attempt_id, conversation_id, tenant_id, model)
SELECT gen_random_uuid(), a.owner_id, m.sequence_no + 1, 'ASSISTANT', a.answer,
       m.created_at + interval '1 second', a.id, a.conversation_id, a.tenant_id, a.model
FROM attempts a JOIN messages m ON m.id = a.user_message_id
WHERE a.conversation_id = :'conv';
UPDATE messages m SET parent_id = p.id, depth = m.sequence_no - 1
FROM messages p
WHERE m.conversation_id = :'conv' AND p.conversation_id = m.conversation_id AND p.sequence_no = m.sequence_no - 1;
UPDATE conversations SET last_sequence_no = 2 * :rounds, title = :'title',
       current_leaf_id = (SELECT id FROM messages WHERE conversation_id = :'conv' AND sequence_no = 2 * :rounds)
WHERE id = :'conv';
COMMIT;
ANALYZE messages;
ANALYZE attempts;
`;

/**
 * seedRounds fills the (new, empty) conversation conv with rounds whole
 * rounds, that is 2 × rounds messages, and titles it.
 */
export function seedRounds(url, conv, rounds, title) {
  psql(url, seedSQL, { conv, rounds: String(rounds), title });
  const n = psql(url, `SELECT count(*) FROM messages WHERE conversation_id = :'conv';`, { conv });
  return Number(n.trim());
}
