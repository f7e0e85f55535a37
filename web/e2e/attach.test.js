// Browser tests of attachments (issue 21): the composer's attach button
// uploads a file into the open conversation (POST /files) and shows its
// status; a file of an unsupported type shows the server's refusal; the
// next question is asked with the READY file (attachmentIds), and its
// answer lists a source labelled as an attachment; after a reload the
// conversation's list (Conversation.attachments) still shows the earlier
// upload, and a file uploaded elsewhere appears by conversationEvents.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newConversation, signIn, startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

test('Attach uploads a file and shows it READY; an image is refused', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);

  await page.getByTestId('attach-input').setInputFiles({
    name: 'notes.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from('# Notes\n\nThe gate code is 4711.\n'),
  });
  const first = page.getByTestId('attachment').nth(0);
  await first.and(page.locator('[data-status="READY"]')).waitFor();
  assert.equal(await first.locator('.attachment-name').textContent(), 'notes.md');
  // It is pending: it goes with the next question, and the list says so.
  await first.getByTestId('attachment-pending').waitFor();

  await page.getByTestId('attach-input').setInputFiles({
    name: 'photo.png',
    mimeType: 'image/png',
    buffer: Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'binary'), Buffer.alloc(32)]),
  });
  const second = page.getByTestId('attachment').nth(1);
  await second.and(page.locator('[data-status="REFUSED"]')).waitFor();
  assert.match(await second.getByTestId('attachment-status').textContent(), /not accepted/);
  await app.shot(page, 'attached');

  await page.getByTestId('question').fill('What is the gate code?');
  await page.getByTestId('send').click();
  const label = page.locator('[data-testid="source"][data-kind="ATTACHMENT"] [data-testid="source-kind"]').first();
  await label.waitFor({ state: 'attached', timeout: 30000 });
  assert.equal(await label.textContent(), '附件'); // the zh-CN console's label
  // The asker may read the file: the source shows its name, not "no longer available".
  const source = page.locator('[data-testid="source"][data-kind="ATTACHMENT"]').first();
  assert.equal(await source.getAttribute('class'), 'source');
  assert.equal(await source.locator('.doc-title').textContent(), 'notes.md');
  // The file went with the question: it is no longer pending for the next
  // one, and stays listed as the conversation's attachment.
  assert.equal(await page.locator('[data-testid="attachment"][data-pending="true"]').count(), 0);
  assert.equal(await page.getByTestId('attachment-pending').count(), 0);
  assert.equal(await page.getByTestId('attachment').first().locator('.attachment-name').textContent(), 'notes.md');
  await app.shot(page, 'asked-with-attachment');

  // After a reload the stored upload is listed from the server; the
  // refused file, never stored, is not.
  await page.reload();
  const listed = page.getByTestId('attachment');
  await listed.first().and(page.locator('[data-status="READY"]')).waitFor();
  assert.equal(await listed.count(), 1);
  assert.equal(await listed.first().locator('.attachment-name').textContent(), 'notes.md');

  // A file uploaded outside this page's button (another tab, a mobile
  // client) appears by conversationEvents ATTACHMENT_UPDATED. graphql-transport-ws
  // acknowledges no subscribe: the list says data-events="live" once its
  // subscription's first event, SUBSCRIBED, came (docs/API.md, "Knowing a
  // stream is live"), and from then on one upload is enough, with no probe
  // or retry.
  await page.locator('[data-testid="attach"][data-events="live"]').waitFor();
  const name = 'elsewhere.txt';
  const status = await page.evaluate(async (name) => {
    const form = new FormData();
    form.append('conversationId', location.pathname.split('/').pop());
    form.append('file', new Blob(['elsewhere'], { type: 'text/plain' }), name);
    const res = await fetch('/files', {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${sessionStorage.getItem('ragchat.token')}` },
    });
    return res.status;
  }, name);
  assert.equal(status, 201);
  const shown = listed.filter({ hasText: name });
  await shown.and(page.locator('[data-status="READY"]')).waitFor();
  assert.equal(await shown.locator('.attachment-name').textContent(), name);
  assert.equal(await shown.getAttribute('data-pending'), null, 'an upload from elsewhere is not pending here');
  assert.equal(await listed.first().locator('.attachment-name').textContent(), 'notes.md');
  await page.context().close();
});
