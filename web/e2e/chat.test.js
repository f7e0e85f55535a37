// Browser tests of the chat: the seed dialogue streams and cites the right
// document, Enter during IME composition does not send, and a member is
// refused the admin views (the offline model); Stop then Retry keeps the
// retry history, and a killed WebSocket mid-answer resumes with nothing
// repeated (the fake model, which holds each answer at its gate while the
// test presses Stop or cuts the socket, so that the answer is certain to
// be running then).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeModel } from './fakemodel.js';
import { ask, gql, newConversation, patience, signIn, startConsole, watchStreaming } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

test('the seed dialogue streams in visibly and the sources panel shows the upload document', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await app.shot(page, 'signed-in');
  await newConversation(page);
  await watchStreaming(page);
  await ask(page, '上传文件最大是多少？');
  const first = page.getByTestId('turn').nth(0);
  await first.getByTestId('streaming-answer').waitFor();
  await app.shot(page, 'seed-streaming');
  await first.getByTestId('answer').waitFor();
  assert.ok((await page.evaluate(() => window.__paints)) > 1, 'the answer was painted in more than one frame');
  assert.match(await first.getByTestId('answer').innerText(), /20MB/);
  assert.ok(await first.getByTestId('source').filter({ hasText: '文件上传限制' }).count(), 'the upload limits document is cited');
  await app.shot(page, 'seed-answer-1');

  await ask(page, '那超过以后返回什么错误码？');
  const second = page.getByTestId('turn').nth(1);
  await second.getByTestId('answer').waitFor();
  assert.match(await second.getByTestId('answer').innerText(), /ERR_FILE_TOO_LARGE/);
  await second.getByTestId('standalone').waitFor();
  assert.ok(await second.getByTestId('source').filter({ hasText: '文件上传限制' }).count());
  await app.shot(page, 'seed-answer-2');
  await page.context().close();
});

test('Enter during IME composition does not send', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  const box = page.getByTestId('question');
  await box.focus();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.imeSetComposition', { text: 'shangchuan', selectionStart: 10, selectionEnd: 10 });
  // The Enter an IME consumes to confirm its candidate: isComposing, 229.
  await box.evaluate((el) => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', keyCode: 229, isComposing: true, bubbles: true, cancelable: true }));
  });
  await cdp.send('Input.insertText', { text: '上传文件最大是多少？' });
  await app.shot(page, 'ime-composed');
  assert.equal(await page.getByTestId('turn').count(), 0, 'nothing was sent during composition');
  assert.equal(await box.inputValue(), '上传文件最大是多少？');
  await box.press('Enter');
  await page.getByTestId('turn').nth(0).getByTestId('answer').waitFor();
  assert.equal(await box.inputValue(), '');
  await page.context().close();
});

test('a member cannot open the admin views: the API refuses and the console says so', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await page.goto(`${app.base}/admin`);
  const alert = page.locator('[role=alert][data-code=FORBIDDEN]');
  await alert.waitFor();
  await app.shot(page, 'member-admin-forbidden');
  const token = await page.evaluate(() => sessionStorage.getItem('ragchat.token'));
  await assert.rejects(gql(app.server.http, token, '{ feedbacks(first: 1) { totalCount } }'), /FORBIDDEN/);
  await page.context().close();
});

describe('with a model the test holds', () => {
  let model;
  let held;
  before(async () => {
    model = await startFakeModel();
    held = await startConsole(model.env);
  });
  after(async () => {
    await held?.stop();
    await model?.stop();
  });

  test('Stop mid-answer, then Retry, then the retry history', async () => {
    const page = await held.page();
    await signIn(page, held.base, 'demo-user');
    await newConversation(page);
    // The answer streams three chunks, then waits at the gate until
    // Stop has ended it.
    await model.hold(3);
    try {
      await ask(page, '什么是 RAG？');
      const turn = page.getByTestId('turn').nth(0);
      await turn.getByTestId('streaming-answer').filter({ hasText: /\S/ }).waitFor();
      await model.waitHeld(1);
      await turn.getByTestId('stop').click();
      await turn.locator('[data-testid=attempt][data-status=FAILED]').waitFor();
      await held.shot(page, 'stopped');
      await model.release();
      await turn.getByTestId('retry').click();
      await turn.locator('[data-testid=attempt][data-status=COMPLETED]').waitFor();
      const tabs = turn.getByTestId('attempt-tab');
      assert.equal(await tabs.count(), 2);
      assert.equal(await tabs.nth(0).getAttribute('data-status'), 'FAILED');
      assert.equal(await tabs.nth(1).getAttribute('data-status'), 'COMPLETED');
      await tabs.nth(0).click();
      await turn.locator('[data-testid=attempt][data-status=FAILED]').waitFor();
      await held.shot(page, 'retry-history');
    } finally {
      await model.release();
    }
    await page.context().close();
  });

  // 4499: graphql-ws reconnects by itself and resubscribes with the
  // original variables (the replay is merged by seq); 1011: graphql-ws
  // gives up and the console resubscribes with afterSeq = the text it has.
  // The answer is held at the gate from before the cut until the page has
  // subscribed again, then moved on to a later chunk, so that text
  // certainly streams after the reconnect while the answer still runs.
  const cut = 3; // chunks of 4 runes the model sends before the cut
  const later = 10; // where it is held again after the reconnect
  for (const code of [4499, 1011]) {
    test(`a WebSocket killed mid-answer (close ${code}) resumes and the answer ends with nothing repeated`, async () => {
      const page = await held.page();
      const sockets = [];
      let blocked = false;
      let cutDone = false;
      let refused;
      const refusedOnce = new Promise((r) => {
        refused = r;
      });
      let resubscribed;
      const resubscribedOnce = new Promise((r) => {
        resubscribed = r;
      });
      await page.routeWebSocket(/\/graphql$/, (ws) => {
        if (blocked) {
          ws.close({ code, reason: 'network down' });
          refused();
          return;
        }
        const server = ws.connectToServer();
        const afterCut = cutDone;
        ws.onMessage((m) => {
          server.send(m);
          if (afterCut && typeof m === 'string' && m.includes('"subscribe"') && m.includes('attemptEvents')) resubscribed();
        });
        sockets.push({ ws, server });
      });
      await signIn(page, held.base, 'demo-user');
      await newConversation(page);
      await watchStreaming(page);
      await model.hold(cut);
      try {
        await ask(page, '什么是 RAG？');
        const turn = page.getByTestId('turn').nth(0);
        await turn.getByTestId('streaming-answer').filter({ hasText: /\S{3}/ }).waitFor();
        await model.waitHeld(1); // the answer cannot end before the cut
        // Cut the network: the socket dies, and reconnects are refused
        // until one has been, then allowed again.
        blocked = true;
        cutDone = true;
        const atCut = await page.evaluate(() => window.__streamed);
        for (const s of sockets) {
          s.ws.close({ code, reason: 'network down' });
          s.server.close();
        }
        await held.shot(page, `socket-killed-${code}`);
        await refusedOnce;
        blocked = false;
        await resubscribedOnce;
        // The model goes on to its chunk `later` and waits there: the
        // text beyond what it had sent before the cut can only reach the
        // page over the new socket, while the answer still runs.
        await model.hold(later);
        await page.waitForFunction((n) => [...window.__streamed].length > n, cut * 4, { timeout: patience });
        const afterReconnect = await page.evaluate(() => window.__streamed);
        await model.release();
        await turn.getByTestId('answer').waitFor({ timeout: patience });
        const attemptId = await turn.getByTestId('attempt').getAttribute('data-attempt-id');
        const token = await page.evaluate(() => sessionStorage.getItem('ragchat.token'));
        const { attempt } = await gql(held.server.http, token, 'query($id: ID!) { attempt(id: $id) { answer } }', { id: attemptId });
        const streamed = await page.evaluate(() => window.__streamed);
        assert.ok(sockets.length >= 2, 'the client reconnected');
        for (const text of [atCut, afterReconnect, streamed]) {
          assert.ok(attempt.answer.startsWith(text), `the streamed text is a prefix of the answer, with nothing repeated:\n${text}\n${attempt.answer}`);
        }
        assert.ok([...atCut].length <= cut * 4 && [...atCut].length < [...attempt.answer].length, 'the socket was cut mid-answer');
        assert.ok([...afterReconnect].length > cut * 4, 'text streamed after the reconnect');
        await held.shot(page, `resumed-${code}`);
      } finally {
        await model.release();
      }
      await page.context().close();
    });
  }
});
