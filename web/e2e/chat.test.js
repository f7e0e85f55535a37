// Browser tests of the chat: the seed dialogue streams and cites the right
// document, Stop then Retry keeps the retry history, a killed WebSocket
// mid-answer resumes with nothing repeated, Enter during IME composition
// does not send, and a member is refused the admin views.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
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

test('Stop mid-answer, then Retry, then the retry history', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  await ask(page, '什么是 RAG？');
  const turn = page.getByTestId('turn').nth(0);
  // Stop once some text has streamed.
  await turn.getByTestId('streaming-answer').filter({ hasText: /\S/ }).waitFor();
  await turn.getByTestId('stop').click();
  await turn.locator('[data-testid=attempt][data-status=FAILED]').waitFor();
  await app.shot(page, 'stopped');
  await turn.getByTestId('retry').click();
  await turn.locator('[data-testid=attempt][data-status=COMPLETED]').waitFor();
  const tabs = turn.getByTestId('attempt-tab');
  assert.equal(await tabs.count(), 2);
  assert.equal(await tabs.nth(0).getAttribute('data-status'), 'FAILED');
  assert.equal(await tabs.nth(1).getAttribute('data-status'), 'COMPLETED');
  await tabs.nth(0).click();
  await turn.locator('[data-testid=attempt][data-status=FAILED]').waitFor();
  await app.shot(page, 'retry-history');
  await page.context().close();
});

// 4499: graphql-ws reconnects by itself and resubscribes with the original
// variables (the replay is merged by seq); 1011: graphql-ws gives up and
// the console resubscribes with afterSeq = the text it has.
for (const code of [4499, 1011]) {
  test(`a WebSocket killed mid-answer (close ${code}) resumes and the answer ends with nothing repeated`, async () => {
    const page = await app.page();
    const sockets = [];
    let blocked = false;
    await page.routeWebSocket(/\/graphql$/, (ws) => {
      if (blocked) {
        ws.close({ code, reason: 'network down' });
        return;
      }
      sockets.push({ ws, server: ws.connectToServer() });
    });
    await signIn(page, app.base, 'demo-user');
    await newConversation(page);
    await watchStreaming(page);
    await ask(page, '什么是 RAG？');
    const turn = page.getByTestId('turn').nth(0);
    await turn.getByTestId('streaming-answer').filter({ hasText: /\S{3}/ }).waitFor();
    // Cut the network: the socket dies and reconnects are refused for a
    // while, then allowed again.
    blocked = true;
    const atCut = await page.evaluate(() => window.__streamed);
    for (const s of sockets) {
      s.ws.close({ code, reason: 'network down' });
      s.server.close();
    }
    await app.shot(page, `socket-killed-${code}`);
    await page.waitForTimeout(1500); // the outage; not an assertion
    blocked = false;
    await turn.getByTestId('answer').waitFor({ timeout: patience });
    const attemptId = await turn.getByTestId('attempt').getAttribute('data-attempt-id');
    const token = await page.evaluate(() => sessionStorage.getItem('ragchat.token'));
    const { attempt } = await gql(app.server.http, token, 'query($id: ID!) { attempt(id: $id) { answer } }', { id: attemptId });
    const streamed = await page.evaluate(() => window.__streamed);
    assert.ok(sockets.length >= 2, 'the client reconnected');
    assert.ok(attempt.answer.startsWith(streamed), `the streamed text is a prefix of the answer, with nothing repeated:\n${streamed}\n${attempt.answer}`);
    assert.ok([...atCut].length < [...attempt.answer].length, 'the socket was cut mid-answer');
    assert.ok(streamed.length > atCut.length, 'text streamed after the reconnect');
    await app.shot(page, `resumed-${code}`);
    await page.context().close();
  });
}

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
