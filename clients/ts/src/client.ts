// The ragchat client: queries and mutations over HTTP POST and
// subscriptions over one graphql-ws WebSocket, both with the bearer token.
//
// The token getter is called for every HTTP request and on every
// WebSocket (re)connect, in connection_init's payload, so a refreshed token
// is picked up without rebuilding the client. graphql-ws reconnects by
// itself; a subscription it resubscribes repeats its original variables,
// which is why streamAttempt (src/stream.ts) resubscribes itself with the
// afterSeq it has reached.
import { print, type ExecutionResult } from 'graphql';
import { createClient, type Client, type Sink } from 'graphql-ws';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

/** A bearer token, or null/undefined when signed out. */
export type TokenGetter = () => string | null | undefined | Promise<string | null | undefined>;

/** The options of createRagchatClient. */
export interface RagchatClientOptions {
  /** The HTTP endpoint, e.g. https://chat.example.com/graphql. */
  url: string;
  /** The WebSocket endpoint; by default url with http(s) turned into ws(s). */
  wsUrl?: string;
  /** Called for every request and on every WebSocket (re)connect. */
  getToken: TokenGetter;
  /** A WebSocket class where the platform has none (Node: the ws package). */
  webSocketImpl?: unknown;
  /** A fetch where the platform has none. */
  fetch?: typeof fetch;
  /** How many times graphql-ws reconnects before it gives up (default 30). */
  retryAttempts?: number;
  /** Waits before reconnect number `retries` (default: 500 ms doubling up to 5 s). */
  retryWait?: (retries: number) => Promise<void>;
  /** Called on every connect and close, for a "reconnecting" banner. */
  onConnectionChange?: (connected: boolean, closeCode?: number) => void;
}

/** A GraphQL error as the server sends it (extensions.code is typed). */
export interface RagchatGraphQLError {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

/** Thrown by request when the response carries errors. */
export class RagchatError extends Error {
  readonly errors: readonly RagchatGraphQLError[];
  readonly code: string | undefined;
  readonly status: number;
  constructor(errors: readonly RagchatGraphQLError[], status: number) {
    super(errors.map((e) => e.message).join('; ') || `HTTP ${status}`);
    this.name = 'RagchatError';
    this.errors = errors;
    this.code = errors[0]?.extensions?.code;
    this.status = status;
  }
}

/** The client the stream and the hooks take. */
export interface RagchatClient {
  /** Runs a query or mutation over HTTP and returns its data. */
  request<R, V extends Record<string, unknown>>(doc: TypedDocumentNode<R, V>, variables: V): Promise<R>;
  /** Subscribes over the WebSocket; returns the unsubscribe function. */
  subscribe<R, V extends Record<string, unknown>>(doc: TypedDocumentNode<R, V>, variables: V, sink: Sink<ExecutionResult<R, unknown>>): () => void;
  /** Adds a listener of the socket's closes (for resume); returns its remover. */
  onClosed(listener: (closeCode: number | undefined) => void): () => void;
  /** The underlying graphql-ws client. */
  readonly ws: Client;
  /** Closes the socket and ends every subscription. */
  dispose(): Promise<void>;
}

/** Creates a client; nothing connects until the first subscription. */
export function createRagchatClient(opts: RagchatClientOptions): RagchatClient {
  const wsUrl = opts.wsUrl ?? opts.url.replace(/^http/, 'ws');
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const closed = new Set<(code: number | undefined) => void>();
  const ws = createClient({
    url: wsUrl,
    lazy: true,
    keepAlive: 10_000,
    retryAttempts: opts.retryAttempts ?? 30,
    retryWait: opts.retryWait ?? (async (n) => new Promise((r) => setTimeout(r, Math.min(500 * 2 ** n, 5_000)))),
    // Every close but a refused token (4403) or a bad request (4400) is
    // retried: a restart (1012), a dropped network (1006).
    shouldRetry: (e) => {
      const code = (e as { code?: number } | undefined)?.code;
      return code !== 4403 && code !== 4400;
    },
    webSocketImpl: opts.webSocketImpl,
    connectionParams: async () => {
      const t = await opts.getToken();
      return t ? { Authorization: `Bearer ${t}` } : {};
    },
    on: {
      connected: () => opts.onConnectionChange?.(true),
      closed: (e) => {
        const code = (e as { code?: number } | undefined)?.code;
        opts.onConnectionChange?.(false, code);
        for (const l of [...closed]) l(code);
      },
    },
  });
  return {
    ws,
    async request(doc, variables) {
      const t = await opts.getToken();
      const res = await doFetch(opts.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...(t ? { authorization: `Bearer ${t}` } : {}),
        },
        body: JSON.stringify({ query: print(doc), variables }),
      });
      let body: { data?: unknown; errors?: RagchatGraphQLError[] };
      try {
        body = await res.json();
      } catch {
        throw new RagchatError([], res.status);
      }
      if (body.errors?.length || body.data == null) throw new RagchatError(body.errors ?? [], res.status);
      return body.data as never;
    },
    subscribe(doc, variables, sink) {
      return ws.subscribe({ query: print(doc), variables }, sink as Sink);
    },
    onClosed(listener) {
      closed.add(listener);
      return () => closed.delete(listener);
    },
    dispose: () => ws.dispose() as Promise<void>,
  };
}
