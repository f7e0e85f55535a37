// Following viewerEvents and conversationEvents (docs/API.md, "Knowing a
// stream is live"). graphql-ws acknowledges no subscribe and these streams
// replay nothing, so the server sends SUBSCRIBED first, once it follows
// the stream: every change made after it arrives reaches the stream. A
// client that keeps a list in sync reads the list then (onLive(true)),
// and again after every reconnect, whose resubscription brings another
// SUBSCRIBED; until then (onLive(false) when the socket closes) changes
// may be missed.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { RagchatClient } from './client';

/** The kind of a stream's first event. */
export const SUBSCRIBED = 'SUBSCRIBED';

/** What followEvents calls. */
export interface FollowEventsHandlers<E> {
  /** Each change the stream reports (never SUBSCRIBED). */
  onEvent?: (event: E) => void;
  /**
   * true on each SUBSCRIBED: the stream is live, read what it keeps in
   * sync now; false when the socket closes, until the resubscription's
   * SUBSCRIBED.
   */
  onLive?: (live: boolean) => void;
  /** The subscription ended with an error (a refused id, a refused token). */
  onError?: (error: unknown) => void;
}

/**
 * Subscribes to doc (a viewerEvents or conversationEvents subscription
 * whose field is field) and tells when it is live. Returns the
 * unsubscribe function.
 */
export function followEvents<R, V extends Record<string, unknown>, K extends keyof R>(
  client: RagchatClient,
  doc: TypedDocumentNode<R, V>,
  variables: V,
  field: K,
  handlers: FollowEventsHandlers<R[K]>,
): () => void {
  let live = false;
  const setLive = (v: boolean) => {
    if (!v && !live) return;
    live = v;
    handlers.onLive?.(v);
  };
  const removeClosed = client.onClosed(() => setLive(false));
  const unsubscribe = client.subscribe(doc, variables, {
    next: (r) => {
      const e = r.data?.[field] as (R[K] & { kind?: string }) | undefined;
      if (!e) return;
      if (e.kind === SUBSCRIBED) setLive(true);
      else handlers.onEvent?.(e);
    },
    error: (err) => {
      setLive(false);
      handlers.onError?.(err);
    },
    complete: () => setLive(false),
  });
  return () => {
    removeClosed();
    unsubscribe();
  };
}
