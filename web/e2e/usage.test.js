// Browser test of the admin usage view: a member's answer shows up in the
// admin console's cost per day, priced with RAGCHAT_MODEL_PRICES.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ask, newConversation, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  // The offline model's answers cost 1 unit (1,000,000 micro-units) per
  // million tokens each way.
  app = await startConsole({ RAGCHAT_MODEL_PRICES: JSON.stringify({ 'offline-extractive-1': { input: 1000000, output: 1000000 } }) });
});
after(async () => {
  await app?.stop();
});

test("a member's answer shows up in the admin console's cost per day", async () => {
  const member = await app.page();
  await signIn(member, app.base, 'demo-user');
  await newConversation(member);
  await ask(member, '上传文件最大是多少？');
  await member.getByTestId('turn').nth(0).getByTestId('answer').waitFor();

  const admin = await app.page();
  await signIn(admin, app.base, 'demo-admin');
  await admin.goto(`${app.base}/admin/usage`);
  const day = admin.getByTestId('cost-day').first();
  await day.waitFor();
  assert.ok(Number(await day.getAttribute('data-tokens')) > 0, 'the day counts the answer’s tokens');
  assert.ok(Number(await day.getAttribute('data-cost-micros')) > 0, 'the day has a cost');
  await app.shot(admin, 'admin-usage-cost');
  await member.context().close();
  await admin.context().close();
});
