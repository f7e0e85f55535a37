// Three replicas of ragchat on one PostgreSQL database, driven by the real
// npm clients as a browser behind a load balancer would meet them: an
// answer asked on A is followed on B over graphql-ws, the socket to B drops
// mid-answer, and the client resumes on C over graphql-sse with afterSeq,
// applying events with lib/attempt-stream.js; viewerEvents on B sees what
// is done through A. Once per broker: PostgreSQL LISTEN/NOTIFY, and NATS
// (a real server built from the nats-server Go module). Needs
// RAGCHAT_TEST_DATABASE_URL (`make test` sets it; so does
// `scripts/pgtest.sh run npm test`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient as createWSClient } from 'graphql-ws';
import { createClient as createSSEClient } from 'graphql-sse';
import WebSocket from 'ws';
import { applyAttemptEvent, codePointLength, initialAttemptState } from '../lib/attempt-stream.js';
import { gql, metricValue, startCluster, startNATS } from '../lib/server.js';

const EVENTS = `subscription($a: ID!, $s: Int) {
  attemptEvents(attemptId: $a, afterSeq: $s) { kind seq text standaloneQuestion sources { label } attempt { status answer } failureCode }
}`;

const VIEWER = `subscription {
  viewerEvents { kind conversationId attemptStatus conversation { id title } }
}`;

// hangGuard bounds every wait; it is never a measurement.
const hangGuard = 60_000;

// Like the Go suites, it fails without a database, unless
// RAGCHAT_SKIP_POSTGRES=1 asks to skip (loudly).
const skip =
  !process.env.RAGCHAT_TEST_DATABASE_URL && process.env.RAGCHAT_SKIP_POSTGRES === '1'
    ? 'RAGCHAT_SKIP_POSTGRES=1: no PostgreSQL, the multi-instance suite did not run'
    : false;

for (const broker of ['postgres', 'nats']) {
  describe(`three replicas on one database, ${broker} broker`, { skip }, () => {
    let cluster;
    let nats;
    let A;
    let B;
    let C;

    before(async () => {
      // 20 ms per token: the offline answer streams for a few seconds, long
      // enough to drop a socket and resume elsewhere mid-answer.
      const env = { RAGCHAT_OFFLINE_TOKEN_DELAY: '20ms' };
      if (broker === 'nats') {
        nats = await startNATS();
        Object.assign(env, { RAGCHAT_BROKER: 'nats', RAGCHAT_NATS_URL: nats.url });
      }
      cluster = await startCluster(3, env);
      [A, B, C] = cluster.servers;
    });

    after(async () => {
      const results = (await cluster?.stop()) ?? [];
      await nats?.stop();
      for (const { code } of results) assert.equal(code, 0, 'every replica exits cleanly on SIGTERM');
    });

    // settled waits until no server has a subscription or WebSocket left:
    // the clients closed and every server released what they held.
    async function settled() {
      const deadline = Date.now() + hangGuard;
      for (;;) {
        const counts = await Promise.all(
          cluster.servers.flatMap((s) => [metricValue(s, 'ragchat_active_subscriptions'), metricValue(s, 'ragchat_websocket_connections')]),
        );
        if (counts.every((n) => n === 0)) return;
        if (Date.now() > deadline) assert.fail(`subscriptions and WebSockets left per server (A, B, C): ${counts}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    test('asked on A, followed on B over graphql-ws, dropped mid-answer, resumed on C over SSE with afterSeq', { timeout: 2 * hangGuard }, async () => {
      const token = A.token(`node-cluster-${broker}`);
      const { createConversation } = await gql(A.http, token, 'mutation { createConversation(input: {}) { id } }');
      const { ask } = await gql(
        A.http,
        token,
        'mutation($c: ID!, $k: String!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: $q}) { attempt { id } } }',
        { c: createConversation.id, k: `cluster-${broker}-${Date.now()}`, q: 'How large can an uploaded file be, and what happens above the limit?' },
      );
      const attempt = ask.attempt.id;

      // B, over graphql-ws, until the network drops the socket mid-answer.
      const sockets = [];
      class TrackedWebSocket extends WebSocket {
        constructor(...args) {
          super(...args);
          sockets.push(this);
        }
      }
      const ws = createWSClient({
        url: B.ws,
        webSocketImpl: TrackedWebSocket,
        connectionParams: { Authorization: `Bearer ${token}` },
        retryAttempts: 0,
      });
      let state = initialAttemptState();
      let shown = ''; // what an incremental renderer displays
      const seqs = []; // every DELTA's seq, in the order received
      const apply = (e) => {
        if (e.kind === 'COMPLETED') {
          // The streamed text is the answer already: COMPLETED adds nothing.
          assert.equal(state.text, e.attempt.answer, 'the text streamed on B and C is the saved answer');
        }
        state = applyAttemptEvent(state, e);
        shown += state.appended;
        if (e.kind === 'DELTA') seqs.push(e.seq);
      };
      let dropped = false;
      try {
        for await (const result of ws.iterate({ query: EVENTS, variables: { a: attempt, s: 0 } })) {
          assert.equal(result.errors, undefined);
          const e = result.data.attemptEvents;
          assert.notEqual(e.kind, 'COMPLETED', 'the answer finished before the drop');
          apply(e);
          if (e.kind === 'DELTA' && state.seq >= 10) {
            // The metric settled() waits on counts this very subscription.
            assert.ok((await metricValue(B, 'ragchat_active_subscriptions')) >= 1, 'B counts the subscription');
            dropped = true;
            sockets.at(-1).terminate(); // the network drops the connection to B
            break;
          }
        }
      } catch (err) {
        if (!dropped) throw err; // the client may report the dropped socket
      } finally {
        await ws.dispose();
      }
      assert.ok(dropped, 'B streamed deltas of the answer A runs');
      assert.equal(state.status, 'PENDING');
      const afterSeq = state.seq;

      // C, over graphql-sse, from where the client is.
      const sse = createSSEClient({ url: C.http, headers: { Authorization: `Bearer ${token}` } });
      const tail = [];
      try {
        for await (const result of sse.iterate({ query: EVENTS, variables: { a: attempt, s: afterSeq } })) {
          assert.equal(result.errors, undefined);
          const e = result.data.attemptEvents;
          tail.push(e);
          apply(e);
        }
      } finally {
        sse.dispose();
      }

      const final = tail.at(-1);
      assert.equal(final.kind, 'COMPLETED');
      const answer = final.attempt.answer;
      assert.ok(tail.some((e) => e.kind === 'DELTA'), 'C sent the rest of the text');
      const first = tail.find((e) => e.kind === 'DELTA');
      assert.equal(first.seq - codePointLength(first.text), afterSeq, 'C resumed exactly at afterSeq');
      assert.equal(new Set(seqs).size, seqs.length, `no seq repeats: ${seqs}`);
      assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y), 'seqs only grow');
      assert.equal(state.text, answer);
      assert.equal(shown, answer, 'nothing was displayed twice and nothing is missing');
      assert.equal(state.replaced, false);
      await settled();
    });

    test('viewerEvents on B sees a conversation created and renamed through A', { timeout: 2 * hangGuard }, async () => {
      const user = `node-feed-${broker}`;
      const token = A.token(user);
      const other = A.token(`${user}-other`);
      const create = async (tok) => (await gql(A.http, tok, 'mutation { createConversation(input: {}) { id } }')).createConversation.id;
      const ws = createWSClient({ url: B.ws, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${token}` } });
      const events = [];
      let wake = () => {};
      const done = (async () => {
        for await (const result of ws.iterate({ query: VIEWER })) {
          assert.equal(result.errors, undefined);
          events.push(result.data.viewerEvents);
          wake();
        }
      })().catch((err) => err); // ends, or fails, with the disposed client
      const waitFor = async (what, pred) => {
        const deadline = Date.now() + hangGuard;
        while (!events.some(pred)) {
          if (Date.now() > deadline) assert.fail(`viewerEvents on B: no ${what} in ${JSON.stringify(events)}`);
          await new Promise((r) => {
            wake = r;
            setTimeout(r, 100);
          });
        }
      };
      try {
        // The subscription has no acknowledgement: create probe
        // conversations through A until B's feed shows one, so it is live.
        const probes = [];
        const deadline = Date.now() + hangGuard;
        while (!events.some((e) => probes.includes(e.conversationId))) {
          if (Date.now() > deadline) assert.fail('viewerEvents on B never saw a conversation created through A');
          probes.push(await create(token));
          await new Promise((r) => setTimeout(r, 100));
        }

        const foreign = await create(other); // another user's: never in this feed
        const id = await create(token);
        await gql(A.http, token, 'mutation($id: ID!, $t: String!) { renameConversation(id: $id, title: $t) { id } }', { id, t: 'Renamed through A' });
        await waitFor('CONVERSATION_CREATED', (e) => e.kind === 'CONVERSATION_CREATED' && e.conversationId === id);
        await waitFor(
          'CONVERSATION_UPDATED with the new title',
          (e) => e.kind === 'CONVERSATION_UPDATED' && e.conversationId === id && e.conversation?.title === 'Renamed through A',
        );
        const mine = events.filter((e) => e.conversationId === id).map((e) => e.kind);
        assert.equal(mine.indexOf('CONVERSATION_CREATED'), 0, `created comes first: ${mine}`);
        assert.ok(!events.some((e) => e.conversationId === foreign), "another user's conversation never reaches the feed");
      } finally {
        await ws.dispose();
        await done;
      }
      await settled();
    });
  });
}
