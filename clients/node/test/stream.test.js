// Drives ragchat with the real npm clients: graphql-ws (WebSocket) and
// graphql-sse (Server-Sent Events). It asks a question, streams the answer
// over WebSocket, disconnects mid-stream, and resumes over SSE with
// afterSeq, checking that no delta is lost or repeated.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient as createWSClient } from 'graphql-ws';
import { createClient as createSSEClient } from 'graphql-sse';
import WebSocket from 'ws';
import { gql, startServer } from '../lib/server.js';

const EVENTS = `subscription($a: ID!, $s: Int) {
  attemptEvents(attemptId: $a, afterSeq: $s) { kind seq text standaloneQuestion attempt { status answer } failureCode }
}`;

let server;
let token;

before(async () => {
  server = await startServer();
  token = server.token('node-alice');
});

after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0, 'ragchat serve exits cleanly on SIGTERM');
});

async function askQuestion(question) {
  const { createConversation } = await gql(server.http, token, 'mutation { createConversation(input: {}) { id } }');
  const { ask } = await gql(
    server.http,
    token,
    'mutation($c: ID!, $k: String!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: $q}) { attempt { id status } deduplicated } }',
    { c: createConversation.id, k: `node-${Date.now()}-${Math.random()}`, q: question },
  );
  assert.equal(ask.deduplicated, false);
  return ask.attempt.id;
}

function wsClient(options = {}) {
  return createWSClient({
    url: server.ws,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}` },
    ...options,
  });
}

// checkDeltas concatenates DELTA texts, asserting contiguous seqs after `from`.
function deltaText(events, from) {
  let seq = from;
  let text = '';
  for (const e of events) {
    if (e.kind !== 'DELTA') continue;
    seq += [...e.text].length;
    assert.equal(e.seq, seq, `DELTA seq ${e.seq}, want ${seq}: a gap or a duplicate`);
    text += e.text;
  }
  return text;
}

test('graphql-ws streams a whole answer', async () => {
  const attempt = await askQuestion('上传文件最大是多少？');
  const client = wsClient();
  const events = [];
  for await (const result of client.iterate({ query: EVENTS, variables: { a: attempt } })) {
    assert.equal(result.errors, undefined);
    events.push(result.data.attemptEvents);
  }
  await client.dispose();
  assert.equal(events[0].kind, 'STARTED');
  assert.ok(events[0].standaloneQuestion);
  const last = events.at(-1);
  assert.equal(last.kind, 'COMPLETED');
  assert.equal(deltaText(events, 0), last.attempt.answer);
  assert.match(last.attempt.answer, /20MB/);
});

test('disconnect mid-stream over graphql-ws, resume over graphql-sse with afterSeq', async () => {
  const attempt = await askQuestion('How large can an uploaded file be, and what happens above the limit?');
  const client = wsClient();
  const head = [];
  const iterator = client.iterate({ query: EVENTS, variables: { a: attempt } });
  for await (const result of iterator) {
    const e = result.data.attemptEvents;
    head.push(e);
    assert.notEqual(e.kind, 'COMPLETED', 'the answer finished before the disconnect');
    if (e.kind === 'DELTA' && e.seq >= 10) break; // leaves the subscription
  }
  await client.dispose(); // drops the socket mid-stream
  const lastSeq = head.at(-1).seq;

  const sse = createSSEClient({ url: server.http, headers: { Authorization: `Bearer ${token}` } });
  const tail = [];
  for await (const result of sse.iterate({ query: EVENTS, variables: { a: attempt, s: lastSeq } })) {
    assert.equal(result.errors, undefined);
    tail.push(result.data.attemptEvents);
  }
  sse.dispose();
  for (const e of tail) {
    if (e.kind === 'DELTA') assert.ok(e.seq > lastSeq, `resumed stream repeats seq ${e.seq}`);
  }
  const final = tail.at(-1);
  assert.equal(final.kind, 'COMPLETED');
  assert.equal(deltaText(head, 0) + deltaText(tail, lastSeq), final.attempt.answer);
});

test('a bad token closes the socket with 4403 and the client gives up', async () => {
  const closes = [];
  let connects = 0;
  const client = wsClient({
    connectionParams: { Authorization: 'Bearer not-a-token' },
    retryAttempts: 2,
    retryWait: async () => {},
    on: { connecting: () => connects++, closed: (event) => closes.push(event.code) },
  });
  await assert.rejects(
    (async () => {
      for await (const _ of client.iterate({ query: EVENTS, variables: { a: '01900000-0000-7000-8000-000000000000' } })) {
        // no events expected
      }
    })(),
    (err) => err.code === 4403,
  );
  await client.dispose();
  assert.ok(closes.length > 0 && closes.every((c) => c === 4403), `close codes ${closes}`);
  assert.equal(connects, 3, 'one attempt plus the two configured retries, then it stops');
});
