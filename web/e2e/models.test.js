// Browser test of the model picker (issue 21): with two model profiles of
// which one is closed to the user's groups, the picker lists the default
// and the open profile only; a question asked with the profile chosen is
// answered by it (the attempt records the profile and its parameters), and
// the choice is kept when the page reloads. A tenant without profiles
// shows no picker. Every wait is for a condition.
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

const conversationId = (page) => decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
const tokenOf = (page) => page.evaluate(() => sessionStorage.getItem('ragchat.token'));

test('no picker while the tenant offers no model profile', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  await page.getByTestId('question').waitFor();
  assert.equal(await page.getByTestId('model-picker').count(), 0);
  await page.context().close();
});

test('the picker lists what the user may use and the answer uses the chosen profile', async () => {
  const adminPage = await app.page();
  await signIn(adminPage, app.base, 'demo-admin');
  const adminToken = await tokenOf(adminPage);
  const create = 'mutation($in: ModelProfileInput!) { createModelProfile(input: $in) { id } }';
  const open = await gql(app.server.http, adminToken, create, { in: { name: 'Offline precise', endpoint: 'offline', model: 'offline', temperatureDefault: 0.1 } });
  await gql(app.server.http, adminToken, create, { in: { name: 'Closed', endpoint: 'offline', model: 'offline', allowedGroups: ['nobody'] } });
  await adminPage.context().close();

  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  const picker = page.getByTestId('model-picker');
  await picker.waitFor();
  const labels = await picker.locator('option').allInnerTexts();
  assert.equal(labels.length, 2, `the default and the open profile: ${labels}`);
  assert.equal(labels[1], 'Offline precise');
  await picker.selectOption(open.createModelProfile.id);
  await ask(page, '上传文件最大是多少？');
  await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
  await app.shot(page, 'model-picker');

  const id = conversationId(page);
  const res = await gql(app.server.http, await tokenOf(page),
    'query($id: ID!) { conversation(id: $id) { attempts(first: 5) { edges { node { modelProfile { name } parameters { temperature } } } } } }', { id });
  const attempts = res.conversation.attempts.edges.map((e) => e.node);
  assert.deepEqual(attempts, [{ modelProfile: { name: 'Offline precise' }, parameters: { temperature: 0.1 } }]);

  await page.reload();
  await page.getByTestId('model-picker').waitFor();
  assert.equal(await page.getByTestId('model-picker').inputValue(), open.createModelProfile.id, 'the choice is kept');
  await page.context().close();
});
