// The React hooks, rendered with react-test-renderer over fake clients:
// useAttemptStream shows the recorded answer once across a dropped socket,
// useConversation pages the current path back, useAsk returns the payload,
// useViewerEvents and useConversationEvents hand over each event and say
// when the stream is live.
import { createElement, type ReactElement } from 'react';
import { act, create } from 'react-test-renderer';
import { expect, test } from 'vitest';
import type { RagchatClient } from '../src/client';
import { RagchatProvider, useAsk, useAttemptStream, useConversation, useConversationEvents, useViewerEvents } from '../src/react';
import { answer, deltaEvents, fakeClient, recorded } from './fake';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Renders hook() inside a provider and returns a getter of its latest result. */
async function renderHook<T>(client: RagchatClient, hook: () => T) {
  let latest!: T;
  function Probe(): null {
    latest = hook();
    return null;
  }
  let r!: { unmount(): void };
  await act(async () => {
    r = create(createElement(RagchatProvider, { client }, createElement(Probe)) as ReactElement);
  });
  return {
    get: () => latest,
    rerender: () => act(async () => (r as unknown as { update(e: ReactElement): void }).update(createElement(RagchatProvider, { client }, createElement(Probe)) as ReactElement)),
    unmount: () => act(async () => r.unmount()),
  };
}

/** Waits, rendering, until ok() holds or the deadline passes. */
async function until(ok: () => boolean, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await act(async () => new Promise((r) => setTimeout(r, 5)));
  }
}

test('useAttemptStream shows the answer once across a dropped socket', async () => {
  const { client, afterSeqs } = fakeClient((s, n) => {
    const all = recorded(s);
    if (n === 0) return [...all.slice(0, 4).map((event) => ({ event })), { close: true as const }];
    return all.map((event) => ({ event }));
  });
  const h = await renderHook(client, () => useAttemptStream('a1'));
  await until(() => h.get().status === 'COMPLETED');
  expect(h.get().text).toBe(answer);
  expect(h.get().error).toBeNull();
  expect(afterSeqs).toHaveLength(2);
  expect(afterSeqs[1]).toBe(deltaEvents(0)[1].seq);
  await h.unmount();
});

test('useConversation pages the current path back, oldest first', async () => {
  const all = Array.from({ length: 5 }, (_, i) => ({ id: `m${i}`, role: i % 2 ? 'ASSISTANT' : 'USER', content: `message ${i}` }));
  const requests: unknown[] = [];
  const { client } = fakeClient(() => [], async (_doc, vars) => {
    requests.push(vars);
    const end = vars.before ? Number(vars.before) : all.length;
    const begin = Math.max(0, end - (vars.last as number));
    return {
      conversation: {
        id: 'c1',
        title: 't',
        currentPath: {
          edges: all.slice(begin, end).map((node, i) => ({ cursor: String(begin + i), node })),
          pageInfo: { hasPreviousPage: begin > 0, startCursor: String(begin) },
        },
      },
    };
  });
  const h = await renderHook(client, () => useConversation('c1', 2));
  await until(() => h.get().messages.length === 2);
  expect(h.get().messages.map((m) => m.id)).toEqual(['m3', 'm4']);
  expect(h.get().hasOlder).toBe(true);
  await act(() => h.get().loadOlder());
  await act(() => h.get().loadOlder());
  expect(h.get().messages.map((m) => m.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  expect(h.get().hasOlder).toBe(false);
  expect(requests).toEqual([
    { id: 'c1', last: 2, before: null },
    { id: 'c1', last: 2, before: '3' },
    { id: 'c1', last: 2, before: '1' },
  ]);
  await h.unmount();
});

test('useAsk resolves with the payload and keeps it', async () => {
  const { client } = fakeClient(() => [], async (_doc, vars) => ({ ask: { deduplicated: false, attempt: { id: 'a9' }, input: vars.input } }));
  const h = await renderHook(client, () => useAsk());
  const payload = await act(() => h.get().ask({ conversationId: 'c1', clientMessageId: 'k1', question: 'q' }));
  expect(payload.attempt.id).toBe('a9');
  expect(h.get().data?.attempt.id).toBe('a9');
  expect(h.get().loading).toBe(false);
  await h.unmount();
});

/** A client whose subscriptions the test feeds (push) and whose socket it closes. */
function pushClient(field: string) {
  let unsubscribed = 0;
  let push: (e: unknown) => void = () => {};
  const closed = new Set<(code: number | undefined) => void>();
  const variables: unknown[] = [];
  const client = {
    subscribe: (_d: unknown, v: unknown, sink: { next: (r: unknown) => void }) => {
      variables.push(v);
      push = (e) => sink.next({ data: { [field]: e } });
      return () => {
        unsubscribed++;
      };
    },
    onClosed: (l: (code: number | undefined) => void) => {
      closed.add(l);
      return () => closed.delete(l);
    },
  } as unknown as RagchatClient;
  return { client, push: (e: unknown) => push(e), close: () => [...closed].forEach((l) => l(1006)), unsubscribed: () => unsubscribed, variables };
}

test('useViewerEvents hands over each event, says when it is live and unsubscribes on unmount', async () => {
  const c = pushClient('viewerEvents');
  const seen: unknown[] = [];
  const lives: boolean[] = [];
  const h = await renderHook(c.client, () => useViewerEvents((e) => seen.push(e), { onLive: (l) => lives.push(l) }));
  expect(h.get().live).toBe(false);
  await act(async () => c.push({ kind: 'SUBSCRIBED', conversationId: null }));
  expect(h.get().live).toBe(true);
  await act(async () => {
    c.push({ kind: 'CONVERSATION_CREATED', conversationId: 'c1' });
    c.push({ kind: 'CONVERSATION_DELETED', conversationId: 'c2' });
  });
  expect(seen).toEqual([
    { kind: 'CONVERSATION_CREATED', conversationId: 'c1' },
    { kind: 'CONVERSATION_DELETED', conversationId: 'c2' },
  ]);
  await act(async () => c.close());
  expect(h.get().live).toBe(false);
  await act(async () => c.push({ kind: 'SUBSCRIBED', conversationId: null }));
  expect(h.get().live).toBe(true);
  expect(lives).toEqual([true, false, true]);
  await h.unmount();
  expect(c.unsubscribed()).toBe(1);
});

test('useConversationEvents follows its conversation and subscribes again for another', async () => {
  const c = pushClient('conversationEvents');
  const seen: unknown[] = [];
  let id = 'c1';
  const h = await renderHook(c.client, () => useConversationEvents(id, (e) => seen.push(e)));
  await act(async () => c.push({ kind: 'SUBSCRIBED', conversationId: 'c1' }));
  expect(h.get().live).toBe(true);
  await act(async () => c.push({ kind: 'BRANCH_SELECTED', conversationId: 'c1', messageId: 'm2' }));
  expect(seen).toEqual([{ kind: 'BRANCH_SELECTED', conversationId: 'c1', messageId: 'm2' }]);
  id = 'c2';
  await h.rerender();
  expect(h.get().live).toBe(false); // not live until c2's stream says so
  expect(c.variables).toEqual([{ conversationId: 'c1' }, { conversationId: 'c2' }]);
  expect(c.unsubscribed()).toBe(1);
  await h.unmount();
  expect(c.unsubscribed()).toBe(2);
});
