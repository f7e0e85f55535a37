// Browser test of share links (issue 20): a member shares an answered
// question as a PUBLIC link; an anonymous reader (a fresh browser context,
// never signed in) opens /s/<token> and sees the question and, since no
// source is open to anonymous readers, the answer withheld (issue 31);
// through a second link whose owner chose to show the answer, the answer
// and its sources, unavailable ones as "source unavailable"; the
// page's HTML carries none of the owner id, the tenant id, the trace id,
// the model, a manifest, or the id of an unavailable source's document.
// Every wait is for a condition.
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

const tokenOf = (page) => page.evaluate(() => sessionStorage.getItem('ragchat.token'));

test('an anonymous reader opens a PUBLIC share and sees nothing it must not', async () => {
  const admin = await app.page();
  await signIn(admin, app.base, 'demo-admin');
  // Public links on; their sources off: every source is unavailable to an
  // anonymous reader.
  await gql(app.server.http, await tokenOf(admin), 'mutation { updateTenantSettings(input: {publicShareLinks: true, publicShareSources: false}) { version } }');
  await admin.context().close();

  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  await ask(page, '上传文件最大是多少？');
  await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
  const token = await tokenOf(page);
  const conv = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
  const seen = await gql(
    app.server.http,
    token,
    `query($id: ID!) { viewer { tenantId userId } conversation(id: $id) { title attempts(first: 5) { edges { node { id status traceId model
      assistantMessage { id } sources { documentId } } } } } }`,
    { id: conv },
  );
  const att = seen.conversation.attempts.edges.map((e) => e.node).find((a) => a.status === 'COMPLETED');
  assert.ok(att?.assistantMessage, 'the question was answered');
  assert.ok(att.sources.length > 0, 'the answer has sources');
  const share = (include) =>
    gql(
      app.server.http,
      token,
      `mutation($c: ID!, $m: ID!, $i: [ID!]) { createShareLink(input: {conversationId: $c, upToMessageId: $m, audience: PUBLIC,
        includeRestrictedAnswers: $i}) { url token } }`,
      { c: conv, m: att.assistantMessage.id, i: include },
    );
  const withheld = await share(null);
  const created = await share([att.id]);
  await page.context().close();

  const reader = await app.page();
  await reader.goto(app.base + withheld.createShareLink.url);
  await reader.locator('[data-role=ASSISTANT][data-withheld=true]').waitFor();
  await app.shot(reader, 'share-withheld');
  assert.equal(await reader.locator('[data-role=USER]').count(), 1, 'the question');
  assert.equal(await reader.locator('[data-available]').count(), 0, 'a withheld answer lists no sources');
  assert.ok(/not shown to you|未向你显示/.test(await reader.content()), 'the withheld answer says so');
  await reader.goto(app.base + created.createShareLink.url);
  await reader.getByTestId('share').waitFor();
  await reader.locator('[data-role=ASSISTANT]').first().waitFor();
  await app.shot(reader, 'share-anonymous');
  assert.equal(await reader.locator('[data-role=USER]').count(), 1, 'the question');
  assert.equal(await reader.locator('[data-available=true]').count(), 0, 'no source is available to an anonymous reader');
  assert.ok((await reader.locator('[data-available=false]').count()) > 0, 'the sources are listed as unavailable');
  const html = await reader.content();
  assert.ok(html.includes('上传文件最大是多少？'), 'the question is shown');
  assert.ok(/source unavailable|来源不可用/.test(html), 'an unavailable source says so');
  const forbidden = {
    'owner id': seen.viewer.userId,
    'tenant id': `"${seen.viewer.tenantId}"`,
    'trace id': att.traceId,
    model: att.model,
    manifest: 'manifest',
    ...Object.fromEntries(att.sources.map((s, i) => [`document id ${i}`, s.documentId])),
  };
  for (const [name, value] of Object.entries(forbidden)) {
    if (!value) continue;
    assert.ok(!html.includes(value), `the share's HTML contains the ${name} (${value})`);
  }
  // Nor did the server send them to the page.
  const res = await fetch(app.server.http, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'query($t: String!) { sharedConversation(token: $t) { title messages { role content sources { label available title snippet } } } }',
      variables: { t: created.createShareLink.token },
    }),
  });
  const text = await res.text();
  assert.ok(text.includes('"sharedConversation":{'), `an anonymous request answers: ${text}`);
  for (const [name, value] of Object.entries(forbidden)) {
    if (value) assert.ok(!text.includes(value), `the share's data contains the ${name}`);
  }
  await reader.context().close();
});
