// Browser tests of conversation search (issue 19): typing in the search box
// lists the matching conversations with their snippets, the matched terms
// in <mark> elements built from the highlight offsets, in Chinese and in
// English; a click opens the conversation. Every wait is for a condition.
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

const conversationId = (page) => decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);

async function search(page, term, marked = term) {
  await page.getByTestId('search').fill(term);
  const mark = page.locator('[data-testid=search-result] mark').filter({ hasText: marked }).first();
  await mark.waitFor();
  return mark;
}

test('the search box highlights Chinese and English terms with <mark> and opens the conversation', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  await ask(page, '上传文件最大是多少？');
  await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
  await ask(page, 'And what is the upload limit for PDF files?');
  await page.getByTestId('turn').nth(1).getByTestId('answer').waitFor();
  const id = conversationId(page);
  await page.goto(app.base + '/');
  await page.getByTestId('search').waitFor();

  const zh = await search(page, '上传');
  assert.equal(await zh.innerText(), '上传');
  await app.shot(page, 'search-zh');

  // Every term must match; each is marked on its own, in the text's case.
  const en = await search(page, 'UPLOAD pdf', 'upload');
  assert.equal(await en.innerText(), 'upload');
  await app.shot(page, 'search-en');

  await page.locator('[data-testid=search-result]').filter({ has: page.locator('mark') }).first().locator('a').click();
  await page.waitForURL(new RegExp(`/c/${id}$`));
  await page.getByTestId('turn').nth(0).waitFor();
  await page.context().close();
});
