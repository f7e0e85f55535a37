// followEvents (docs/API.md, "Knowing a stream is live") over a fake
// client: the stream is live from its SUBSCRIBED event, which onEvent
// never gets; a socket close makes it not live until the resubscription's
// SUBSCRIBED, which calls onLive(true) again (read the list again then);
// an error ends it; unsubscribing removes the close listener.
import type { ExecutionResult } from 'graphql';
import type { Sink } from 'graphql-ws';
import { expect, test } from 'vitest';
import type { RagchatClient } from '../src/client';
import { followEvents, SUBSCRIBED } from '../src/events';
import { ViewerEventsSubscription } from '../src/operations';

/** A client with one subscription at a time, driven by the test. */
function scriptedClient() {
  const closed = new Set<(code: number | undefined) => void>();
  let sink: Sink<ExecutionResult<unknown>> | null = null;
  let unsubscribed = 0;
  const client = {
    subscribe(_doc: unknown, _vars: unknown, s: Sink<ExecutionResult<unknown>>) {
      sink = s;
      return () => {
        unsubscribed++;
      };
    },
    onClosed(l: (code: number | undefined) => void) {
      closed.add(l);
      return () => closed.delete(l);
    },
  } as unknown as RagchatClient;
  return {
    client,
    event: (kind: string, conversationId: string | null = null) => sink!.next({ data: { viewerEvents: { kind, conversationId } } }),
    close: (code = 1006) => [...closed].forEach((l) => l(code)),
    fail: (err: unknown) => sink!.error(err),
    listeners: () => closed.size,
    unsubscribed: () => unsubscribed,
  };
}

test('SUBSCRIBED makes the stream live, again after each reconnect, and never reaches onEvent', () => {
  const c = scriptedClient();
  const live: boolean[] = [];
  const events: unknown[] = [];
  const stop = followEvents(c.client, ViewerEventsSubscription, {}, 'viewerEvents', {
    onEvent: (e) => events.push(e),
    onLive: (l) => live.push(l),
  });
  expect(live).toEqual([]); // not live before the server says so
  c.close(); // a close before it was live says nothing
  expect(live).toEqual([]);
  c.event(SUBSCRIBED);
  c.event('CONVERSATION_CREATED', 'c1');
  c.close();
  c.event('CONVERSATION_UPDATED', 'c1'); // a straggler: still handed over
  c.event(SUBSCRIBED); // the resubscription
  c.event('CONVERSATION_DELETED', 'c1');
  expect(live).toEqual([true, false, true]);
  expect(events).toEqual([
    { kind: 'CONVERSATION_CREATED', conversationId: 'c1' },
    { kind: 'CONVERSATION_UPDATED', conversationId: 'c1' },
    { kind: 'CONVERSATION_DELETED', conversationId: 'c1' },
  ]);
  expect(c.listeners()).toBe(1);
  stop();
  expect(c.listeners()).toBe(0);
  expect(c.unsubscribed()).toBe(1);
});

test('an error ends a live stream and is handed over', () => {
  const c = scriptedClient();
  const live: boolean[] = [];
  const errors: unknown[] = [];
  followEvents(c.client, ViewerEventsSubscription, {}, 'viewerEvents', { onLive: (l) => live.push(l), onError: (e) => errors.push(e) });
  c.event(SUBSCRIBED);
  c.fail([{ message: 'not found', extensions: { code: 'NOT_FOUND' } }]);
  expect(live).toEqual([true, false]);
  expect(errors).toHaveLength(1);
});
