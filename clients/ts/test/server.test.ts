// The package against a real `ragchat serve` (built from this repository,
// started by clients/node/lib/server.js on a fresh PostgreSQL database when
// RAGCHAT_TEST_DATABASE_URL is set, else SQLite): ask with the typed
// mutation, stream the answer with streamAttempt, kill the socket mid-answer
// and check that the client reconnected with a fresh token from the getter,
// resumed with afterSeq, and shows the stored answer exactly once; follow
// viewerEvents and conversationEvents from the moment they are live.
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
// @ts-expect-error: a JavaScript module of the Node client's tests, without types.
import { gql, startServer } from '../../node/lib/server.js';
import { createRagchatClient, RagchatError } from '../src/client';
import { codePointLength } from '../src/merge';
import { followEvents } from '../src/events';
import { AskMutation, ConversationEventsSubscription, ViewerEventsSubscription } from '../src/operations';
import { streamAttempt } from '../src/stream';

type Server = { http: string; ws: string; token: (user: string, ...flags: string[]) => string; stop: () => Promise<unknown> };
let server: Server;

beforeAll(async () => {
  server = await startServer({ RAGCHAT_OFFLINE_TOKEN_DELAY: '15ms' });
});

afterAll(async () => {
  await server?.stop();
});

for (const question of ['How large can an uploaded file be, and what happens above the limit?', '上传文件最大是多少？超过限制会怎样？']) {
  test(`a socket killed mid-answer resumes with afterSeq and repeats nothing (${question})`, async () => {
    // Two tokens of the same user: the first connect gets the first, every
    // later one the second, as after a refresh.
    const tokens = [server.token('ts-client'), server.token('ts-client')];
    const given: string[] = [];
    const getToken = () => {
      const t = tokens[Math.min(given.length, 1)];
      given.push(t);
      return t;
    };
    const sockets: WebSocket[] = [];
    class TrackedWebSocket extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        sockets.push(this);
      }
    }
    const client = createRagchatClient({ url: server.http, wsUrl: server.ws, getToken, webSocketImpl: TrackedWebSocket, retryWait: async () => {} });
    try {
      const { createConversation } = await gql(server.http, tokens[0], 'mutation { createConversation(input: {}) { id } }');
      const { ask } = await client.request(AskMutation, {
        input: { conversationId: createConversation.id, clientMessageId: `ts-${Date.now()}-${Math.random()}`, question },
      });
      expect(ask.attempt.status).not.toBe('FAILED');

      const afterSeqs: number[] = [];
      let painted = '';
      let dropped = false;
      const stream = streamAttempt(client, ask.attempt.id, {
        onSubscribe: (s) => afterSeqs.push(s),
        onState: (st) => {
          painted += st.appended;
          if (!dropped && st.seq >= 10 && st.status === 'PENDING') {
            dropped = true;
            sockets.at(-1)!.terminate(); // the network drops the connection
          }
        },
      });
      const final = await stream.done;

      const { attempt } = await gql(server.http, tokens[0], 'query($id: ID!) { attempt(id: $id) { status answer } }', { id: ask.attempt.id });
      expect(dropped).toBe(true);
      expect(final.status).toBe('COMPLETED');
      expect(attempt.status).toBe('COMPLETED');
      expect(final.text).toBe(attempt.answer);
      expect(painted).toBe(attempt.answer); // shown once, nothing repeated
      expect(sockets.length).toBeGreaterThanOrEqual(2);
      // The getter was asked again for the reconnect (HTTP requests ask too).
      expect(given.length).toBeGreaterThanOrEqual(3);
      // The resubscription asked from the text applied, not from 0.
      expect(afterSeqs[0]).toBe(0);
      expect(afterSeqs.length).toBeGreaterThanOrEqual(2);
      expect(afterSeqs[1]).toBeGreaterThanOrEqual(10);
      expect(afterSeqs[1]).toBeLessThanOrEqual(codePointLength(attempt.answer));
    } finally {
      await client.dispose();
    }
  });
}

test("another user's attempt is NOT_FOUND, and streamAttempt does not retry it", async () => {
  const owner = server.token('ts-owner');
  const { createConversation } = await gql(server.http, owner, 'mutation { createConversation(input: {}) { id } }');
  const { ask } = await gql(
    server.http,
    owner,
    'mutation($c: ID!, $k: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: "How large can an upload be?"}) { attempt { id } } }',
    { c: createConversation.id, k: `ts-owner-${Date.now()}` },
  );
  const client = createRagchatClient({ url: server.http, wsUrl: server.ws, getToken: () => server.token('ts-other'), webSocketImpl: WebSocket });
  try {
    const afterSeqs: number[] = [];
    const err = await streamAttempt(client, ask.attempt.id, { onSubscribe: (s) => afterSeqs.push(s) }).done.catch((e) => e);
    expect(err).toBeInstanceOf(RagchatError);
    expect(err.code).toBe('NOT_FOUND');
    expect(afterSeqs).toEqual([0]);
  } finally {
    await client.dispose();
  }
});

// followEvents against the server (docs/API.md, "Knowing a stream is
// live"): a conversation created as soon as the feed is live is always
// its next event, and a rename made as soon as the conversation's stream
// is live is always that stream's, with no probe or retry, on every round.
test('a change made once the stream is live always reaches it', async () => {
  const token = server.token('ts-live');
  const client = createRagchatClient({ url: server.http, wsUrl: server.ws, getToken: () => token, webSocketImpl: WebSocket });
  // inbox collects a stream's events; live resolves on its SUBSCRIBED.
  const inbox = () => {
    const events: { kind: string; conversationId: string | null }[] = [];
    const failures: unknown[] = [];
    let wake = () => {};
    let resolveLive!: () => void;
    return {
      live: new Promise<void>((r) => (resolveLive = r)),
      handlers: {
        onLive: (l: boolean) => l && resolveLive(),
        onEvent: (e: { kind: string; conversationId: string | null }) => {
          events.push(e);
          wake();
        },
        onError: (e: unknown) => {
          failures.push(e);
          wake();
        },
      },
      async next() {
        while (events.length === 0 && failures.length === 0) await new Promise<void>((r) => (wake = r));
        if (failures.length > 0) throw failures[0];
        return events.shift()!;
      },
    };
  };
  try {
    for (let i = 0; i < 10; i++) {
      const feed = inbox();
      const stopFeed = followEvents(client, ViewerEventsSubscription, {}, 'viewerEvents', feed.handlers);
      await feed.live;
      const { createConversation } = await gql(server.http, token, 'mutation { createConversation(input: {}) { id } }');
      expect(await feed.next()).toMatchObject({ kind: 'CONVERSATION_CREATED', conversationId: createConversation.id });
      stopFeed();

      const conv = inbox();
      const stopConv = followEvents(client, ConversationEventsSubscription, { conversationId: createConversation.id }, 'conversationEvents', conv.handlers);
      await conv.live;
      await gql(server.http, token, 'mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }', { c: createConversation.id, t: `round ${i}` });
      expect(await conv.next()).toMatchObject({ kind: 'CONVERSATION_UPDATED', conversationId: createConversation.id });
      stopConv();
    }
  } finally {
    await client.dispose();
  }
});
