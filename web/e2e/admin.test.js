// Browser tests across the chat and the admin console: feedback given in
// the chat shows up in the admin feedback browser and summary chart (and
// links to its attempt), and an admin revoking a document's ACL turns the
// member's old source into "no longer available".
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ask, newConversation, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

test('feedback given in the chat shows up in the admin feedback browser and summary chart', async () => {
  const member = await app.page();
  await signIn(member, app.base, 'demo-user');
  await newConversation(member);
  await ask(member, '上传文件最大是多少？');
  const turn = member.getByTestId('turn').nth(0);
  await turn.getByTestId('answer').waitFor();
  await turn.getByRole('button', { name: '没有帮助' }).click();
  await turn.getByLabel('INACCURATE').check();
  await turn.getByRole('textbox', { name: '意见（可选）' }).fill('e2e: the limit is wrong');
  await turn.getByRole('button', { name: '提交反馈' }).click();
  await turn.getByText('感谢反馈。').waitFor();
  await app.shot(member, 'feedback-given');

  const admin = await app.page();
  await signIn(admin, app.base, 'demo-admin');
  await admin.goto(`${app.base}/admin/feedback`);
  const row = admin.getByTestId('feedback-row').filter({ hasText: 'e2e: the limit is wrong' });
  await row.waitFor();
  assert.match(await row.innerText(), /INACCURATE/);
  const summary = admin.getByTestId('feedback-summary');
  await summary.waitFor();
  assert.ok(Number(await summary.getAttribute('data-down')) >= 1);
  const inaccurate = admin.locator('[data-testid=reason-count][data-reason=INACCURATE]');
  assert.ok(Number(await inaccurate.getAttribute('data-count')) >= 1, 'the chart counts the reason');
  assert.ok(await admin.locator('.recharts-bar-rectangle').count(), 'the chart draws bars');
  await app.shot(admin, 'admin-feedback');
  await row.getByTestId('inspect-attempt').click();
  const inspector = admin.getByTestId('attempt-inspector');
  await inspector.locator('[data-testid=inspector-status][data-status=COMPLETED]').waitFor();
  assert.ok(await inspector.getByTestId('inspector-source').count(), 'the inspector lists the sources');
  await app.shot(admin, 'attempt-inspector');
  await member.context().close();
  await admin.context().close();
});

test("the admin revokes a document's ACL; the member's old answer shows the source as no longer available", async () => {
  const member = await app.page();
  await signIn(member, app.base, 'demo-user');
  await newConversation(member);
  await ask(member, '上传文件最大是多少？');
  const turn = member.getByTestId('turn').nth(0);
  await turn.getByTestId('answer').waitFor();
  const cited = turn.locator('.source:not(.unavailable)').filter({ hasText: '文件上传限制' });
  assert.ok(await cited.count(), 'the member sees the document first');
  const url = member.url();

  const admin = await app.page();
  await signIn(admin, app.base, 'demo-admin');
  await admin.goto(`${app.base}/admin/knowledge`);
  const row = admin.locator('[data-testid=document-row][data-title="文件上传限制"]');
  await row.getByTestId('edit-acl').click();
  const editor = row.getByTestId('acl-editor');
  await editor.getByLabel('可见范围').selectOption('RESTRICTED');
  await editor.getByLabel('用户组').fill('ops');
  await app.shot(admin, 'acl-editor');
  await editor.getByTestId('save-acl').click();
  await row.filter({ hasText: 'RESTRICTED' }).waitFor();

  await member.goto(url);
  const again = member.getByTestId('turn').nth(0);
  await again.getByTestId('answer').waitFor();
  await again.locator('.source.unavailable').first().waitFor();
  assert.equal(await again.locator('.source:not(.unavailable)').filter({ hasText: '文件上传限制' }).count(), 0);
  assert.match(await again.locator('.source.unavailable').first().innerText(), /已不可用/);
  await app.shot(member, 'source-no-longer-available');
  await member.context().close();
  await admin.context().close();
});
