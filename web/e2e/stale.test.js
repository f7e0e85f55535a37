// Browser test of stale-answer warnings (docs/API.md, "Stale answers"): a
// member asks, an admin re-ingests the cited document with other text
// through the GraphQL API, and after a reload the answer shows the
// "sources changed" badge; Re-ask asks the question again and a new
// answer appears below it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ask, gql, newConversation, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

test('an answer whose cited document changed shows the badge, and Re-ask answers again', async () => {
  const res = await fetch(`${app.base}/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'demo-admin' }) });
  const { token: admin } = await res.json();
  const kbs = await gql(app.server.http, admin, '{ knowledgeBases(first: 1) { edges { node { id } } } }');
  const kb = kbs.knowledgeBases.edges[0].node.id;
  const ingest = (content) =>
    gql(app.server.http, admin, 'mutation($k: ID!, $c: String!) { ingestDocument(input: {knowledgeBaseId: $k, title: "Zorkmid policy", sourceUri: "e2e://zorkmid", content: $c}) { id version } }', { k: kb, c: content });
  await ingest('The zorkmid allowance is 42 zorkmids per quarter for every zorkmid claim.');

  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  await ask(page, 'What is the zorkmid allowance in zorkmids per quarter?');
  const first = page.getByTestId('turn').nth(0);
  await first.getByTestId('answer').waitFor();
  assert.ok(await first.getByTestId('source').filter({ hasText: 'Zorkmid policy' }).count(), 'the zorkmid policy is among the sources');
  assert.equal(await first.getByTestId('stale-badge').count(), 0, 'a fresh answer has no badge');

  const changed = await ingest('The zorkmid allowance was cut to 7 zorkmids per year.');
  assert.equal(changed.ingestDocument.version, 2);
  await page.reload();
  const badge = page.getByTestId('turn').nth(0).getByTestId('stale-badge');
  await badge.waitFor();
  // The re-ingest replaced the cited chunks, so the sources themselves
  // are no longer readable (no title); the badge says what changed.
  assert.ok((await badge.locator('[data-testid=stale-source][data-change=CHANGED]').count()) > 0, 'the badge lists a CHANGED source');
  assert.match(await badge.innerText(), /1 → 2/);
  await app.shot(page, 'stale-badge');

  await badge.getByTestId('reask').click();
  const second = page.getByTestId('turn').nth(1);
  await second.getByTestId('answer').waitFor();
  assert.match(await second.getByTestId('question-text').innerText(), /zorkmid/i);
  await app.shot(page, 'stale-reasked');
  await page.context().close();
});
