// Browser tests of export (issue 19): the header's buttons download the
// open conversation as JSON and as Markdown (exportConversation), named
// by the server, and both files hold the question asked.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { ask, newConversation, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

async function downloaded(page, testId) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { name: dl.suggestedFilename(), text: await readFile(await dl.path(), 'utf8') };
}

test('Export JSON and Export Markdown download the conversation with its question', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  const question = '上传文件最大是多少？';
  await ask(page, question);
  await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();

  const json = await downloaded(page, 'export-json');
  assert.match(json.name, /\.json$/);
  const doc = JSON.parse(json.text);
  assert.ok(JSON.stringify(doc).includes(question), 'the JSON export holds the question');
  assert.ok(JSON.stringify(doc).includes('20MB'), 'and the answer');

  const md = await downloaded(page, 'export-markdown');
  assert.match(md.name, /\.md$/);
  assert.ok(md.text.includes(question), 'the Markdown export holds the question');
  await app.shot(page, 'exported');
  await page.context().close();
});
