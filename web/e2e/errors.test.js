// Browser tests of the chat's error states: Send disabled while an answer
// runs (and a CONVERSATION_BUSY from another tab's answer linking to it),
// the RATE_LIMITED countdown after which Send comes back with the draft
// kept, an expired token sending the user to sign in again and back to
// the same conversation with the draft kept, and UNAVAILABLE's retry
// banner resending the same question. Waits are hang guards
// only; nothing asserts a duration. The answers that must still be
// running while the test looks come from the fake model, held at its gate
// until the test lets them go on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeModel } from './fakemodel.js';
import { ask, gql, newConversation, signIn, startConsole } from './harness.js';

const askMutation = 'mutation($input: AskInput!) { ask(input: $input) { attempt { id status } } }';

/** The open conversation's id, from the URL (/c/<id>). */
const conversationId = (page) => decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
const tokenOf = (page) => page.evaluate(() => sessionStorage.getItem('ragchat.token'));

describe('with the default ask rate', () => {
  let app;
  before(async () => {
    app = await startConsole();
  });
  after(async () => {
    await app?.stop();
  });

  test('an expired token sends the user to sign in again and back to the conversation, the draft kept', async () => {
    const page = await app.page();
    await signIn(page, app.base, 'demo-user');
    await newConversation(page);
    await ask(page, '上传文件最大是多少？');
    await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
    const url = page.url();
    // Swap in a token that expires in a few seconds (as the development
    // sign-in's would after its hour), and open the conversation with it.
    const short = app.server.token('demo-user', '--ttl', '4s');
    await page.evaluate((t) => sessionStorage.setItem('ragchat.token', t), short);
    await page.reload();
    await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
    await page.getByTestId('question').fill('那超过以后返回什么错误码？');
    await app.shot(page, 'draft-before-expiry');
    // The token expires: the server ends the WebSocket, refuses the
    // reconnect (4403), and a development token cannot be renewed, so
    // the console goes to sign in.
    await page.waitForURL(/\/signin$/);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('ragchat.token')), null, 'the expired token is forgotten');
    await app.shot(page, 'sign-in-again');
    await page.getByTestId('signin-demo-user').click();
    await page.waitForURL(url);
    const box = page.getByTestId('question');
    await box.waitFor();
    assert.equal(await box.inputValue(), '那超过以后返回什么错误码？', 'the draft survived the sign-in');
    await app.shot(page, 'back-with-draft');
    await box.press('Enter');
    await page.getByTestId('turn').nth(1).getByTestId('answer').waitFor();
    assert.match(await page.getByTestId('turn').nth(1).getByTestId('answer').innerText(), /ERR_FILE_TOO_LARGE/);
    await page.context().close();
  });

  test('UNAVAILABLE: a retry banner resends the same question, which is asked once', async () => {
    const page = await app.page();
    await signIn(page, app.base, 'demo-ops');
    await newConversation(page);
    // The first try of the ask is answered 503 (a draining server or a
    // proxy without a backend); the retry goes through.
    let refused = 0;
    const keys = [];
    await page.route(/\/graphql$/, async (route) => {
      const body = route.request().postDataJSON?.() ?? null;
      if (body?.operationName !== 'Ask') return route.continue();
      keys.push(body.variables.input.clientMessageId);
      if (refused++ === 0) return route.fulfill({ status: 503, contentType: 'text/plain', body: 'unavailable' });
      return route.continue();
    });
    await ask(page, '上传文件最大是多少？');
    const banner = page.locator('[role=alert][data-code=UNAVAILABLE]');
    await banner.waitFor();
    assert.equal(await page.getByTestId('question').inputValue(), '上传文件最大是多少？', 'the draft is kept');
    await app.shot(page, 'unavailable-banner');
    await banner.getByTestId('retry-banner').click();
    await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
    assert.equal(await page.getByTestId('turn').count(), 1, 'asked once');
    assert.equal(await banner.count(), 0, 'the banner is gone');
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1], 'the retry reuses the clientMessageId');
    await page.context().close();
  });
});

describe('with a model the test holds', () => {
  let model;
  let app;
  before(async () => {
    model = await startFakeModel();
    app = await startConsole(model.env);
  });
  after(async () => {
    await app?.stop();
    await model?.stop();
  });

  test('Send is disabled while an answer runs; a CONVERSATION_BUSY from elsewhere links to the running answer', async () => {
    const page = await app.page();
    await signIn(page, app.base, 'demo-ops');
    await newConversation(page);
    // Every answer waits at the gate after two chunks until released.
    await model.hold(2);
    try {
      await ask(page, '什么是 RAG？');
      const first = page.getByTestId('turn').nth(0);
      await first.getByTestId('streaming-answer').filter({ hasText: /\S/ }).waitFor();
      await model.waitHeld(1);
      // Type the next question while the answer runs: Send is disabled
      // and says why; Enter does not send.
      const box = page.getByTestId('question');
      await box.fill('那 embedding 是什么？');
      await page.getByTestId('send-reason').getByTestId('running-answer').waitFor();
      assert.equal(await page.getByTestId('send').isDisabled(), true, 'Send is disabled during the answer');
      await app.shot(page, 'busy-send-disabled');
      await box.press('Enter');
      assert.equal(await page.getByTestId('turn').count(), 1, 'Enter sent nothing while the answer runs');
      await model.release();
      await first.getByTestId('answer').waitFor();
      await page.locator('[data-testid=send]:not([disabled])').waitFor();
      assert.equal(await page.getByTestId('send-reason').count(), 0, 'the reason is gone with the answer');
      assert.equal(await box.inputValue(), '那 embedding 是什么？', 'the draft is kept');

      // Another tab starts an answer this page does not know of, held
      // while the page sends: the server answers CONVERSATION_BUSY, and
      // the console links to that answer.
      await model.hold(2);
      const { ask: started } = await gql(app.server.http, await tokenOf(page), askMutation, {
        input: { conversationId: conversationId(page), clientMessageId: `e2e-${Date.now()}`, question: '什么是 RAG？' },
      });
      assert.equal(started.attempt.status, 'PENDING');
      await model.waitHeld(1);
      await page.getByTestId('send').click();
      const busy = page.locator('[role=alert][data-code=CONVERSATION_BUSY]');
      const link = busy.getByTestId('running-answer-link');
      assert.equal(await link.getAttribute('href'), `#attempt-${started.attempt.id}`);
      // The running answer is loaded into the view (the link's target).
      await page.locator(`#attempt-${started.attempt.id}`).waitFor();
      await app.shot(page, 'busy-from-another-tab');
      // When it ends, Send is back and the note is gone.
      await model.release();
      await page.locator(`#attempt-${started.attempt.id}[data-status=COMPLETED]`).waitFor();
      await page.locator('[data-testid=send]:not([disabled])').waitFor();
      assert.equal(await busy.count(), 0, 'the busy note is gone once the answer ended');
      await page.getByTestId('send').click();
      await page.getByTestId('turn').nth(2).getByTestId('answer').waitFor();
      assert.equal(await box.inputValue(), '', 'the kept draft was sent');
    } finally {
      await model.release();
    }
    await page.context().close();
  });
});

describe('with a tiny ask rate', () => {
  let app;
  before(async () => {
    // One question at once, then one every 15 s per user. The demo tenant
    // stores its own ask rate (the defaults), which outranks
    // RAGCHAT_ASK_RATE_PER_MINUTE and RAGCHAT_ASK_BURST, so the tenant's
    // settings are changed as an admin would.
    app = await startConsole();
    const admin = app.server.token('demo-admin', '--role', 'admin');
    const { updateTenantSettings: s } = await gql(app.server.http, admin, 'mutation { updateTenantSettings(input: {askRatePerMinute: 4, askBurst: 1}) { askRatePerMinute askBurst } }');
    assert.deepEqual(s, { askRatePerMinute: 4, askBurst: 1 });
  });
  after(async () => {
    await app?.stop();
  });

  test('RATE_LIMITED counts down, then Send comes back with the draft kept', async () => {
    const page = await app.page();
    await signIn(page, app.base, 'demo-user');
    await newConversation(page);
    await page.getByTestId('question').fill('什么是 RAG？');
    // The user's one question of the burst goes elsewhere (another tab, in
    // another conversation) just before this one is sent: the ask rate
    // refuses it.
    const token = await tokenOf(page);
    const { createConversation: other } = await gql(app.server.http, token, 'mutation { createConversation(input: {}) { id } }');
    await gql(app.server.http, token, askMutation, { input: { conversationId: other.id, clientMessageId: `e2e-${Date.now()}`, question: '上传文件最大是多少？' } });
    await page.getByTestId('question').press('Enter');
    const countdown = page.getByTestId('rate-limit-countdown');
    await countdown.waitFor();
    const seen = new Set();
    const first = Number(await countdown.getAttribute('data-seconds'));
    assert.ok(first > 0, `a retry-after is shown (${first})`);
    seen.add(first);
    assert.equal(await page.getByTestId('send').isDisabled(), true, 'Send waits for the countdown');
    assert.equal(await page.getByTestId('question').inputValue(), '什么是 RAG？', 'the draft is kept');
    assert.match(await page.getByTestId('send-reason').innerText(), /\d/);
    await app.shot(page, 'rate-limited-countdown');
    // Watch the countdown until Send comes back.
    while (await page.getByTestId('send').isDisabled()) {
      const s = await countdown.getAttribute('data-seconds', { timeout: 1000 }).catch(() => null);
      if (s !== null) seen.add(Number(s));
      await page.waitForTimeout(200); // polling, not an assertion
    }
    assert.ok(seen.size >= 2, `the countdown moved: ${[...seen].join(', ')}`);
    assert.equal(await countdown.count(), 0, 'the note is gone when the wait is over');
    assert.equal(await page.getByTestId('question').inputValue(), '什么是 RAG？', 'the draft is still there');
    await app.shot(page, 'rate-limit-over');
    await page.getByTestId('send').click();
    await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
    assert.equal(await page.getByTestId('question').inputValue(), '');
    await page.context().close();
  });
});
