// Browser tests of organising conversations (issue 19): a pinned
// conversation is listed under "Pinned" and still is after a reload;
// folders are created, nested one level, renamed and deleted, a
// conversation moved into one stays there after a reload and is unfiled
// again when the folder is deleted; tags are created from the header, shown
// in their colour, kept across a reload and removed. Every wait is for a
// condition (a hang guard, never a timing assertion).
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
const row = (page, section, id) => page.locator(`[data-testid=${section}] [data-testid=conversation-row][data-id="${id}"]`);

/**
 * Starts a conversation with one answered question and returns its id. The
 * page may show another conversation before: the question must be the new
 * one's only turn.
 */
async function answered(page, question) {
  await newConversation(page);
  await ask(page, question);
  await page.getByTestId('turn').filter({ hasText: question }).getByTestId('answer').waitFor();
  assert.equal(await page.getByTestId('turn').count(), 1, 'the question went into the new conversation');
  return conversationId(page);
}

/** Answers the next window.prompt with text. */
function answerPrompt(page, text) {
  page.once('dialog', (d) => void d.accept(text));
}

test('pinning lists the conversation under Pinned, across a reload, and unpinning puts it back', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  const id = await answered(page, '上传文件最大是多少？');
  await row(page, 'unfiled', id).waitFor();
  await row(page, 'unfiled', id).getByTestId('pin').click();
  await row(page, 'pinned', id).waitFor();
  assert.equal(await row(page, 'unfiled', id).count(), 0, 'a pinned conversation is listed once');
  await app.shot(page, 'organise-pinned');
  await page.reload();
  await row(page, 'pinned', id).waitFor();
  await row(page, 'pinned', id).getByTestId('unpin').click();
  await row(page, 'unfiled', id).waitFor();
  assert.equal(await page.getByTestId('pinned').count(), 0, 'no Pinned section without pinned conversations');
  await page.context().close();
});

test('folders: create, nest one level, move a conversation in, rename, delete', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  const id = await answered(page, '那超过以后返回什么错误码？');
  answerPrompt(page, '工作');
  await page.getByTestId('new-folder').click();
  const folder = page.getByTestId('folder').filter({ has: page.getByTestId('folder-name').filter({ hasText: '工作' }) }).first();
  await folder.waitFor();
  const folderId = await folder.getAttribute('data-id');
  answerPrompt(page, '子项目');
  await folder.getByTestId('new-subfolder').first().click();
  await folder.locator('.subfolders [data-testid=folder-name]').filter({ hasText: '子项目' }).waitFor();

  await row(page, 'unfiled', id).getByTestId('move-to-folder').selectOption(folderId);
  const inFolder = page.locator(`[data-testid=folder][data-id="${folderId}"] [data-testid=conversation-row][data-id="${id}"]`);
  await inFolder.waitFor();
  assert.equal(await row(page, 'unfiled', id).count(), 0);
  await app.shot(page, 'organise-folder');
  await page.reload();
  await inFolder.waitFor();

  answerPrompt(page, 'Work 2026');
  await page.locator(`[data-testid=folder][data-id="${folderId}"]`).getByTestId('rename-folder').first().click();
  await page.locator(`[data-testid=folder][data-id="${folderId}"] [data-testid=folder-name]`).first().filter({ hasText: 'Work 2026' }).waitFor();

  await page.locator(`[data-testid=folder][data-id="${folderId}"]`).getByTestId('delete-folder').first().click();
  await row(page, 'unfiled', id).waitFor();
  assert.equal(await page.locator(`[data-testid=folder][data-id="${folderId}"]`).count(), 0, 'the folder is gone');
  // Its subfolder moved up to the top level.
  await page.locator('[data-testid=folders] > ul > [data-testid=folder] [data-testid=folder-name]').filter({ hasText: '子项目' }).waitFor();
  await page.context().close();
});

test('tags on the header: create, colour, reload, add an existing one elsewhere, remove', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  const first = await answered(page, '上传文件最大是多少？');
  const tags = page.getByTestId('tags');
  await page.getByTestId('add-tag').fill('网络');
  await page.getByTestId('add-tag').press('Enter');
  const tag = tags.getByTestId('tag').filter({ hasText: '网络' });
  await tag.waitFor();
  assert.match((await tag.getAttribute('style')) ?? '', /background/, 'the tag shows its colour');
  await app.shot(page, 'organise-tag');
  await page.reload();
  await tag.waitFor();

  // The same name on another conversation reuses the tag (one tag, two conversations).
  const second = await answered(page, '那超过以后返回什么错误码？');
  assert.notEqual(second, first);
  assert.equal(await tags.getByTestId('tag').count(), 0, 'the header shows the new conversation, without tags');
  await page.getByTestId('add-tag').fill('网络');
  await page.getByTestId('add-tag').press('Enter');
  await tag.waitFor();
  const token = await page.evaluate(() => sessionStorage.getItem('ragchat.token'));
  const res = await gql(app.server.http, token, '{ tags { id name } }');
  assert.equal(res.tags.filter((t) => t.name === '网络').length, 1, 'the existing tag was reused');

  await tag.getByRole('button').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid=tags] [data-testid=tag]'));
  await page.reload();
  await page.getByTestId('add-tag').waitFor();
  assert.equal(await tags.getByTestId('tag').count(), 0, 'the removal was saved');
  await page.context().close();
});
