// graphql-transport-ws close codes, seen by the real graphql-ws client. The
// client decides from the code whether to reconnect: 4400, 4401, 4409 and
// 4429 are fatal (it gives up at once, whatever retryAttempts says), 4403
// and 4408 are retried. Violations the client never commits itself
// (malformed frames, subscribe before the acknowledgement, a second
// connection_init) are injected by a WebSocket subclass that tampers with
// the client's frames; the client is otherwise untouched.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { gql, startServer } from '../lib/server.js';

let server;
let token;
let conversation;

before(async () => {
  server = await startServer({ RAGCHAT_WS_INIT_TIMEOUT: '1s' });
  token = server.token('node-close-codes');
  ({ createConversation: { id: conversation } } = await gql(
    server.http,
    token,
    'mutation { createConversation(input: {}) { id } }',
  ));
});

after(async () => {
  await server.stop();
});

const LIVE = 'subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }';

// tampering returns a WebSocket class for graphql-ws whose instances call
// onInit(socket, initFrame) instead of sending connection_init (the hook
// sends what it wants) and onAck(socket) once the server acknowledged.
function tampering({ onInit, onAck } = {}) {
  return class TamperedWebSocket extends WebSocket {
    constructor(...args) {
      super(...args);
      if (onAck) {
        this.addEventListener('message', ({ data }) => {
          if (JSON.parse(String(data)).type === 'connection_ack') onAck(this);
        });
      }
    }

    send(data) {
      if (onInit && JSON.parse(String(data)).type === 'connection_init') return onInit(this, data);
      return super.send(data);
    }
  };
}

// watch creates a graphql-ws client that records the close codes it sees
// and counts its connection attempts; it would retry up to 3 times.
function watch(options = {}) {
  const seen = { closes: [], opened: 0 };
  const client = createClient({
    url: server.ws,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 3,
    retryWait: async () => {},
    ...options,
    on: {
      opened: () => seen.opened++,
      closed: (event) => seen.closes.push(event.code),
    },
  });
  return { client, seen };
}

// drain iterates a subscription to its end and returns its results.
async function drain(client, query, variables) {
  const results = [];
  for await (const r of client.iterate({ query, variables })) results.push(r);
  return results;
}

// givesUp asserts that the subscription fails with code after a single
// connection.
async function givesUp(client, seen, code, reason) {
  await assert.rejects(drain(client, LIVE, { c: conversation }), (err) => {
    assert.equal(err.code, code, `closed with ${err.code} ${err.reason}`);
    if (reason) assert.match(err.reason, reason);
    return true;
  });
  await client.dispose();
  assert.deepEqual(seen.closes, [code]);
  assert.equal(seen.opened, 1, 'graphql-ws does not reconnect after this code');
}

const opts = { timeout: 30_000 };

test('an unknown message type closes with 4400 and graphql-ws gives up', opts, async () => {
  const { client, seen } = watch({ webSocketImpl: tampering({ onAck: (ws) => ws.send('{"type":"hello"}') }) });
  await givesUp(client, seen, 4400, /Unexpected message/);
});

test('a malformed message closes with 4400 and graphql-ws gives up', opts, async () => {
  const { client, seen } = watch({ webSocketImpl: tampering({ onAck: (ws) => ws.send('{"type":') }) });
  await givesUp(client, seen, 4400, /Invalid message/);
});

test('subscribe before connection_ack closes with 4401 and graphql-ws gives up', opts, async () => {
  const early = JSON.stringify({ id: 'early', type: 'subscribe', payload: { query: '{ __typename }' } });
  const { client, seen } = watch({
    webSocketImpl: tampering({
      onInit: (ws, init) => {
        WebSocket.prototype.send.call(ws, early);
        WebSocket.prototype.send.call(ws, init);
      },
    }),
  });
  await givesUp(client, seen, 4401, /Unauthorized/);
});

test('a second connection_init closes with 4429 and graphql-ws gives up', opts, async () => {
  const { client, seen } = watch({
    webSocketImpl: tampering({
      onInit: (ws, init) => {
        WebSocket.prototype.send.call(ws, init);
        WebSocket.prototype.send.call(ws, init);
      },
    }),
  });
  await givesUp(client, seen, 4429, /Too many initialisation requests/);
});

test('two subscriptions with one id close with 4409 and graphql-ws gives up', opts, async () => {
  const { client, seen } = watch({ generateID: () => 'same-id' });
  const both = [drain(client, LIVE, { c: conversation }), drain(client, LIVE, { c: conversation })];
  for (const p of both) {
    await assert.rejects(p, (err) => {
      assert.equal(err.code, 4409);
      assert.equal(err.reason, 'Subscriber for same-id already exists');
      return true;
    });
  }
  await client.dispose();
  assert.deepEqual(seen.closes, [4409]);
  assert.equal(seen.opened, 1);
});

test('connection_init after the init timeout closes with 4408 and graphql-ws retries', opts, async () => {
  let calls = 0;
  const { client, seen } = watch({
    connectionParams: async () => {
      if (calls++ === 0) await new Promise((r) => setTimeout(r, 2500)); // longer than the 1 s init timeout
      return { Authorization: `Bearer ${token}` };
    },
  });
  const results = await drain(client, '{ viewer { userId } }');
  await client.dispose();
  assert.equal(seen.closes[0], 4408);
  assert.equal(seen.opened, 2, 'graphql-ws reconnected after 4408');
  assert.equal(results.length, 1);
  assert.equal(results[0].data.viewer.userId, 'node-close-codes');
});

test('a refused token closes with 4403 and graphql-ws retries, then gives up', opts, async () => {
  const { client, seen } = watch({ connectionParams: { Authorization: 'Bearer not-a-token' } });
  await assert.rejects(drain(client, LIVE, { c: conversation }), (err) => err.code === 4403);
  await client.dispose();
  assert.deepEqual(seen.closes, [4403, 4403, 4403, 4403], 'one attempt and three retries');
});
