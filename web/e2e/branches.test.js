// Browser tests of message trees in the console (issue 18): editing round
// 2 of 4 streams the new branch (and Enter during an IME composition in
// the edit box does not send), "‹ n / m ›" switches back, a reload keeps
// the selection (it is the server's, currentLeafId), a second browser
// context sees switches and a regeneration at depth live (BRANCH_SELECTED
// on conversationEvents), and an edit refused with CONVERSATION_BUSY links
// to the running answer and goes through, with the same clientMessageId,
// once it ended. The answers come from the fake model, held at its gate
// while the test looks at a stream, so that the answer is certain to be
// running then. Every wait is for a condition (a hang guard, never a
// timing assertion).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFakeModel } from './fakemodel.js';
import { ask, gql, newConversation, patience, signIn, startConsole } from './harness.js';

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

const rounds = ['第一轮：什么是 RAG？', '第二轮：什么是向量检索？', '第三轮：什么是重排序？', '第四轮：什么是 embedding？'];

/** The open conversation's id, from the URL (/c/<id>). */
const conversationId = (page) => decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
const tokenOf = (page) => page.evaluate(() => sessionStorage.getItem('ragchat.token'));

/** Waits until the view shows exactly these questions, in order (the current branch). */
async function waitQuestions(page, want) {
  await page
    .waitForFunction(
      (w) => JSON.stringify([...document.querySelectorAll('[data-testid=turn] [data-testid=question-text]')].map((e) => e.textContent)) === JSON.stringify(w),
      want,
      { timeout: patience },
    )
    .catch(async (err) => {
      const have = await page.$$eval('[data-testid=turn] [data-testid=question-text]', (els) => els.map((e) => e.textContent));
      throw new Error(`the view shows ${JSON.stringify(have)}, not ${JSON.stringify(want)}`, { cause: err });
    });
}

/** Waits until a versions control says "index+1 / count". */
async function waitVersions(locator, index, count) {
  await locator.and(locator.page().locator(`[data-index="${index}"][data-count="${count}"]`)).waitFor();
  assert.equal((await locator.getByTestId('version-label').innerText()).replace(/\s/g, ''), `${index + 1}/${count}`);
}

const turn = (page, i) => page.getByTestId('turn').nth(i);
const completed = (page, i) => turn(page, i).locator('[data-testid=attempt][data-status=COMPLETED]').waitFor();

/** Asks each question in the console and waits for its answer. */
async function askRounds(page, questions) {
  for (const [i, q] of questions.entries()) {
    await ask(page, q);
    await completed(page, i);
  }
  await waitQuestions(page, questions);
}

/** The server's current leaf of the conversation, and the one the view shows. */
async function leaves(page) {
  const { conversation } = await gql(app.server.http, await tokenOf(page), 'query($id: ID!) { conversation(id: $id) { currentLeafId } }', { id: conversationId(page) });
  const shown = await page.getByTestId('messages').getAttribute('data-leaf');
  return { server: conversation.currentLeafId, shown };
}

test('editing round 2 of 4 streams the new branch; ‹ › switches back; a reload keeps the selection', async () => {
  const page = await app.page();
  await signIn(page, app.base, 'demo-user');
  await newConversation(page);
  await askRounds(page, rounds);
  await app.shot(page, 'branches-four-rounds');

  const edited = '第二轮（改）：向量检索和关键词检索有什么区别？';
  await model.hold(2);
  try {
    await turn(page, 1).getByTestId('edit').click();
    const box = turn(page, 1).getByTestId('edit-box');
    await box.waitFor();
    assert.equal(await box.inputValue(), rounds[1], 'the edit starts from the question');
    // Enter that an input method consumes (isComposing, keyCode 229) only
    // confirms the composition: nothing is sent.
    await box.fill('');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Input.imeSetComposition', { text: 'xiangliang', selectionStart: 10, selectionEnd: 10 });
    await box.evaluate((el) => {
      el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', keyCode: 229, isComposing: true, bubbles: true, cancelable: true }));
    });
    await cdp.send('Input.insertText', { text: edited });
    assert.equal(await box.count(), 1, 'the edit box is still open: nothing was sent during composition');
    assert.equal(await box.inputValue(), edited);
    // The turn being edited shows its box instead of its text.
    await waitQuestions(page, [rounds[0], rounds[2], rounds[3]]);
    assert.equal(await page.getByTestId('turn').count(), 4, 'the branch is unchanged while composing');
    await box.press('Enter');

    // The new branch: round 1, then the edited round 2, its answer
    // streaming (held at the gate, so certainly still running).
    await waitQuestions(page, [rounds[0], edited]);
    const streaming = turn(page, 1).getByTestId('streaming-answer').filter({ hasText: /\S/ });
    await streaming.waitFor();
    await model.waitHeld(1);
    assert.equal(await turn(page, 1).locator('[data-testid=attempt][data-status=PENDING]').count(), 1, 'the new answer is running');
    await page.getByTestId('send-reason').getByTestId('running-answer').waitFor();
    await app.shot(page, 'branches-edit-streaming');
  } finally {
    await model.release();
  }
  await completed(page, 1);
  await waitVersions(turn(page, 1).getByTestId('question-versions'), 1, 2);
  await app.shot(page, 'branches-edit-answered');

  // ‹ : back to the original round 2, with rounds 3 and 4 after it.
  await turn(page, 1).getByTestId('question-versions').getByTestId('version-prev').click();
  await waitQuestions(page, rounds);
  await waitVersions(turn(page, 1).getByTestId('question-versions'), 0, 2);
  for (let i = 0; i < 4; i++) await completed(page, i);
  let l = await leaves(page);
  assert.equal(l.shown, l.server, 'the view ends at the server current leaf');
  await app.shot(page, 'branches-switched-back');

  // A reload keeps the selection: it is stored on the server.
  await page.reload();
  await waitQuestions(page, rounds);
  await waitVersions(turn(page, 1).getByTestId('question-versions'), 0, 2);

  // › : the edited branch again, and a reload keeps that one too.
  await turn(page, 1).getByTestId('question-versions').getByTestId('version-next').click();
  await waitQuestions(page, [rounds[0], edited]);
  await page.reload();
  await waitQuestions(page, [rounds[0], edited]);
  await waitVersions(turn(page, 1).getByTestId('question-versions'), 1, 2);
  l = await leaves(page);
  assert.equal(l.shown, l.server);
  await app.shot(page, 'branches-reloaded');
  await page.context().close();
});

test('a second browser context sees switches and a regeneration live; a busy edit links to the running answer', async () => {
  const a = await app.page();
  await signIn(a, app.base, 'demo-user');
  await newConversation(a);
  await askRounds(a, rounds.slice(0, 2));
  const edited = '第二轮（改）：什么是混合检索？';
  await turn(a, 1).getByTestId('edit').click();
  await turn(a, 1).getByTestId('edit-box').fill(edited);
  await turn(a, 1).getByTestId('edit-save').click();
  await waitQuestions(a, [rounds[0], edited]);
  await completed(a, 1);

  // Another device of the same user, on the same conversation.
  const b = await app.page();
  await signIn(b, app.base, 'demo-user');
  await b.goto(a.url());
  await waitQuestions(b, [rounds[0], edited]);
  await completed(b, 1);

  // A switches back: B follows without a reload.
  await turn(a, 1).getByTestId('question-versions').getByTestId('version-prev').click();
  await waitQuestions(a, rounds.slice(0, 2));
  await waitQuestions(b, rounds.slice(0, 2));
  await waitVersions(turn(b, 1).getByTestId('question-versions'), 0, 2);
  await app.shot(b, 'branches-live-switch');
  // And the other way round.
  await turn(b, 1).getByTestId('question-versions').getByTestId('version-next').click();
  await waitQuestions(b, [rounds[0], edited]);
  await waitQuestions(a, [rounds[0], edited]);

  // Regenerate the first answer (not the last one): the branch is round
  // 1 with its new answer, streaming on both.
  await model.hold(2);
  try {
    await turn(a, 0).getByTestId('retry').click();
    await waitQuestions(a, [rounds[0]]);
    await turn(a, 0).getByTestId('streaming-answer').filter({ hasText: /\S/ }).waitFor();
    await model.waitHeld(1);
    await waitQuestions(b, [rounds[0]]);
    await turn(b, 0).getByTestId('streaming-answer').waitFor();
    await app.shot(b, 'branches-live-regenerate');
  } finally {
    await model.release();
  }
  await completed(a, 0);
  await waitVersions(turn(a, 0).getByTestId('answer-versions'), 1, 2);
  await waitVersions(turn(b, 0).getByTestId('answer-versions'), 1, 2);

  // ‹ on the answer: the old answer's branch, continued to its most
  // recently active leaf (the edited round 2), on both.
  await turn(a, 0).getByTestId('answer-versions').getByTestId('version-prev').click();
  await waitQuestions(a, [rounds[0], edited]);
  await waitQuestions(b, [rounds[0], edited]);
  await waitVersions(turn(b, 0).getByTestId('answer-versions'), 0, 2);

  // An answer started elsewhere that A does not know of: A's edit is
  // refused with CONVERSATION_BUSY, which links to that answer (loaded
  // into the view); once it ended, the same edit goes through.
  await model.hold(2);
  let started;
  try {
    ({ ask: started } = await gql(app.server.http, await tokenOf(a), 'mutation($input: AskInput!) { ask(input: $input) { attempt { id status } } }', {
      input: { conversationId: conversationId(a), clientMessageId: `e2e-${Date.now()}`, question: '第三轮：什么是重排序？' },
    }));
    assert.equal(started.attempt.status, 'PENDING');
    await model.waitHeld(1);
    await turn(a, 0).getByTestId('edit').click();
    await turn(a, 0).getByTestId('edit-box').fill('第一轮（改）：RAG 的全称是什么？');
    await turn(a, 0).getByTestId('edit-box').press('Enter');
    const busy = a.locator('[role=alert][data-code=CONVERSATION_BUSY]');
    await busy.waitFor();
    assert.equal(await busy.getByTestId('running-answer-link').getAttribute('href'), `#attempt-${started.attempt.id}`);
    await a.locator(`#attempt-${started.attempt.id}`).waitFor();
    assert.equal(await turn(a, 0).getByTestId('edit-box').count(), 1, 'the refused edit stays in its box');
    await app.shot(a, 'branches-edit-busy');
  } finally {
    await model.release();
  }
  await a.locator(`#attempt-${started.attempt.id}[data-status=COMPLETED]`).waitFor();
  await a.locator('[data-testid=edit-save]:not([disabled])').waitFor();
  assert.equal(await a.locator('[role=alert][data-code=CONVERSATION_BUSY]').count(), 0, 'the busy note is gone once the answer ended');
  await turn(a, 0).getByTestId('edit-save').click();
  await waitQuestions(a, ['第一轮（改）：RAG 的全称是什么？']);
  await completed(a, 0);
  await waitQuestions(b, ['第一轮（改）：RAG 的全称是什么？']);
  await waitVersions(turn(b, 0).getByTestId('question-versions'), 1, 2);
  await a.context().close();
  await b.context().close();
});
