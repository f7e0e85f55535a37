// Browser tests of temporary chats (issue 19): with the switch on, "New
// conversation" starts a temporary chat that shows its badge with the
// expiry, is not listed, answers, shows its attachment READY (by its own
// conversationEvents: viewerEvents never mentions a temporary chat), and
// after Keep is a normal conversation
// listed in the sidebar; under the tenant's ENFORCED policy every new chat
// is temporary, the switch is on and locked and Keep is gone; under
// FORBIDDEN the switch is hidden. Every wait is for a condition.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ask, gql, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

const conversationId = (page) => decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
const tokenOf = (page) => page.evaluate(() => sessionStorage.getItem('ragchat.token'));
const listed = (page, id) => page.locator(`[data-testid=conversation-row][data-id="${id}"]`);

async function startChat(page) {
  await page.getByTestId('new-conversation').click();
  await page.waitForURL(/\/c\//);
  await page.getByTestId('question').waitFor();
  return conversationId(page);
}

async function setPolicy(policy) {
  const page = await app.page();
  await signIn(page, app.base, 'demo-admin');
  await gql(app.server.http, await tokenOf(page), 'mutation($p: String!) { updateTenantSettings(input: {temporaryChats: $p}) { version } }', { p: policy });
  return page;
}

test('a temporary chat shows its badge, is not listed, and Keep makes it a normal conversation', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await page.getByTestId('temporary-switch').check();
  const id = await startChat(page);
  const badge = page.getByTestId('temporary-badge');
  await badge.waitFor();
  assert.match(await badge.innerText(), /临时会话：.+后删除/, 'the badge says when it goes');
  await page.getByTestId('attach-input').setInputFiles({
    name: 'notes.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from('# Notes\n\nThe gate code is 4711.\n'),
  });
  await page.getByTestId('attachment').nth(0).and(page.locator('[data-status="READY"]')).waitFor();
  await ask(page, '上传文件最大是多少？');
  await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
  assert.equal(await listed(page, id).count(), 0, 'a temporary chat is never listed');
  assert.equal(await page.getByTestId('export-json').count(), 0, 'a temporary chat is not exported');
  await app.shot(page, 'temporary-badge');

  await page.getByTestId('keep').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid=temporary-badge]'));
  await listed(page, id).waitFor();
  await page.reload();
  await listed(page, id).waitFor();
  assert.equal(await page.getByTestId('temporary-badge').count(), 0, 'kept for good');
  const res = await gql(app.server.http, await tokenOf(page), 'query($id: ID!) { conversation(id: $id) { temporary temporaryExpiresAt } }', { id });
  assert.deepEqual(res.conversation, { temporary: false, temporaryExpiresAt: null });
  await page.context().close();
});

test('ENFORCED: every new chat is temporary, the switch is locked on and Keep is gone; FORBIDDEN hides the switch', async () => {
  const admin = await setPolicy('ENFORCED');
  try {
    const page = await app.page();
    await signIn(page, app.base, 'demo-user');
    await startChat(page);
    await page.getByTestId('temporary-badge').waitFor();
    const sw = page.getByTestId('temporary-switch');
    await sw.waitFor();
    assert.ok(await sw.isChecked(), 'the switch shows the policy');
    assert.ok(await sw.isDisabled(), 'and cannot be turned off');
    assert.equal(await page.getByTestId('keep').count(), 0, 'nothing can be kept under ENFORCED');
    await app.shot(page, 'temporary-enforced');
    await page.context().close();

    // An admin reads the policy: under FORBIDDEN the switch is not shown at all.
    await gql(app.server.http, await tokenOf(admin), 'mutation { updateTenantSettings(input: {temporaryChats: "FORBIDDEN"}) { version } }');
    await admin.goto(app.base + '/');
    await admin.getByTestId('new-conversation').waitFor();
    await admin.waitForFunction(() => !document.querySelector('[data-testid=temporary-switch]'));

    // A member reads it too (viewer.temporaryChats): no switch at all.
    const fresh = await app.page();
    await signIn(fresh, app.base, 'demo-user');
    await fresh.locator('[data-temporary-policy=FORBIDDEN]').waitFor();
    assert.equal(await fresh.getByTestId('temporary-switch').count(), 0, 'no switch under FORBIDDEN');
    await fresh.context().close();
  } finally {
    await gql(app.server.http, await tokenOf(admin), 'mutation { updateTenantSettings(input: {temporaryChats: "ALLOWED"}) { version } }');
    await admin.context().close();
  }
});

test('a member whose page was open when temporary chats were turned off learns it from the refusal', async () => {
  const member = await app.page();
  await signIn(member, app.base, 'demo-user');
  await member.locator('[data-temporary-policy=ALLOWED]').waitFor();
  const admin = await setPolicy('FORBIDDEN');
  try {
    await member.getByTestId('temporary-switch').check();
    await member.getByTestId('new-conversation').click();
    await member.locator('[role=alert][data-code=FORBIDDEN]').waitFor();
    await member.waitForFunction(() => !document.querySelector('[data-testid=temporary-switch]'));
    await member.context().close();
  } finally {
    await gql(app.server.http, await tokenOf(admin), 'mutation { updateTenantSettings(input: {temporaryChats: "ALLOWED"}) { version } }');
    await admin.context().close();
  }
});
