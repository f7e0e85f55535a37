// The real graphql-ws client loses its socket mid-answer, reconnects on its
// own and resubscribes with the original variables (afterSeq 0): the server
// replays the answer from the start. Appending every DELTA would repeat
// text; applying them by seq (lib/attempt-stream.js) shows the answer once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { applyAttemptEvent, codePointLength, initialAttemptState } from '../lib/attempt-stream.js';
import { gql, startServer } from '../lib/server.js';

const EVENTS = `subscription($a: ID!, $s: Int) {
  attemptEvents(attemptId: $a, afterSeq: $s) { kind seq text standaloneQuestion requiresHistory sources { label } attempt { status answer } failureCode }
}`;

let server;
let token;

before(async () => {
  server = await startServer();
  token = server.token('node-reconnect');
});

after(async () => {
  await server.stop();
});

async function askQuestion(question) {
  const { createConversation } = await gql(server.http, token, 'mutation { createConversation(input: {}) { id } }');
  const { ask } = await gql(
    server.http,
    token,
    'mutation($c: ID!, $k: String!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: $q}) { attempt { id } } }',
    { c: createConversation.id, k: `reconnect-${Date.now()}-${Math.random()}`, q: question },
  );
  return ask.attempt.id;
}

for (const question of [
  'How large can an uploaded file be, and what happens above the limit?',
  '上传文件最大是多少？超过限制会怎样？',
]) {
  test(`graphql-ws reconnects mid-answer; applying DELTAs by seq repeats nothing (${question})`, { timeout: 60_000 }, async () => {
    const attempt = await askQuestion(question);
    const sockets = [];
    class TrackedWebSocket extends WebSocket {
      constructor(...args) {
        super(...args);
        sockets.push(this);
      }
    }
    let connected = 0;
    const client = createClient({
      url: server.ws,
      webSocketImpl: TrackedWebSocket,
      connectionParams: async () => ({ Authorization: `Bearer ${token}` }),
      retryAttempts: 3,
      retryWait: async () => {},
      on: { connected: () => connected++ },
    });

    const received = [];
    let state = initialAttemptState();
    let shown = ''; // what an incremental renderer displays
    let dropped = false;
    for await (const result of client.iterate({ query: EVENTS, variables: { a: attempt, s: 0 } })) {
      assert.equal(result.errors, undefined);
      const e = result.data.attemptEvents;
      received.push(e);
      state = applyAttemptEvent(state, e);
      shown += state.appended;
      if (!dropped && e.kind === 'DELTA' && e.seq >= 10) {
        assert.equal(state.status, 'PENDING', 'the answer is still streaming when the socket drops');
        dropped = true;
        sockets.at(-1).terminate(); // the network drops the connection
      }
    }
    await client.dispose();

    assert.ok(dropped);
    assert.equal(connected, 2, 'graphql-ws reconnected once by itself');
    const final = received.at(-1);
    assert.equal(final.kind, 'COMPLETED');
    const answer = final.attempt.answer;

    // The resubscription replayed from the start: a second STARTED, and a
    // DELTA covering text the client already had.
    const restart = received.findIndex((e, i) => i > 0 && e.kind === 'STARTED');
    assert.ok(restart > 0, 'the stream started again after the reconnect');
    const replayed = received.slice(restart).find((e) => e.kind === 'DELTA');
    assert.equal(replayed.seq - codePointLength(replayed.text), 0, 'the replay starts at code point 0 (afterSeq 0)');

    const naive = received.filter((e) => e.kind === 'DELTA').map((e) => e.text).join('');
    assert.notEqual(naive, answer, 'appending every DELTA repeats the replayed text');
    assert.ok(naive.length > answer.length);

    assert.equal(state.text, answer, 'applied by seq, the text is the answer');
    assert.equal(shown, answer, 'and nothing was displayed twice');
    assert.equal(state.seq, codePointLength(answer));
    assert.equal(state.standaloneQuestion, received[0].standaloneQuestion, 'STARTED again changed nothing');
  });
}
