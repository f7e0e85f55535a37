// Apollo Client over one graphql-ws WebSocket for subscriptions and HTTP for
// queries and mutations, both with the bearer token. The socket reconnects
// by itself (graphql-ws resubscribes with the original variables; the
// attempt stream merges the replay by seq) and calls connectionParams again,
// so a fresh token is used after a sign-in. A refused token (HTTP 401 or
// UNAUTHENTICATED) is renewed silently when it can be and the operation
// sent again; otherwise the user is sent to sign in (src/auth/session.ts).
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { ErrorLink } from '@apollo/client/link/error';
import { from as fromPromise, switchMap, throwError } from 'rxjs';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient, type Client } from 'graphql-ws';
import { getToken, signInAgain } from './auth/token';
import { toUiError } from './errors';

/** Connection state listeners, for the "reconnecting" banner. */
type ConnListener = (connected: boolean) => void;
const listeners = new Set<ConnListener>();
let connectedNow = false;

/** Reports whether the socket is connected (acknowledged) right now. */
export function isConnected(): boolean {
  return connectedNow;
}

/** Subscribes to the socket's connected/closed changes. */
export function onConnectionChange(l: ConnListener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The WebSocket client, exposed for tests and for closing on sign-out. */
export let wsClient: Client;

/** Builds the client for this page's origin. */
export function makeClient(onAuthFailure: () => void, reauthenticate: () => Promise<boolean>): ApolloClient {
  const wsURL = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  wsClient = createClient({
    url: wsURL,
    lazy: true,
    keepAlive: 10_000,
    retryAttempts: 30,
    retryWait: async (n) => {
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** n, 5_000)));
    },
    shouldRetry: () => true,
    connectionParams: () => {
      const t = getToken();
      return t ? { Authorization: `Bearer ${t}` } : {};
    },
    on: {
      connected: () => {
        connectedNow = true;
        listeners.forEach((l) => l(true));
      },
      closed: (e) => {
        connectedNow = false;
        const code = (e as CloseEvent | undefined)?.code;
        // 1000 is the lazy close once no subscription is left: not a loss.
        if (code !== 1000) listeners.forEach((l) => l(false));
        if (code === 4403) onAuthFailure();
      },
    },
  });
  const auth = new SetContextLink((prev) => {
    const t = getToken();
    return { headers: { ...prev.headers, ...(t ? { authorization: `Bearer ${t}` } : {}) } };
  });
  const http = new HttpLink({ uri: '/graphql' });
  // An expired token: renew it and send the operation once more, or go
  // to sign in (the error still reaches the caller, which keeps its
  // draft).
  const renew = new ErrorLink(({ error, operation, forward }) => {
    if (toUiError(error).kind !== 'signIn') return;
    const ctx = operation.getContext() as { renewed?: boolean };
    if (ctx.renewed) {
      signInAgain();
      return;
    }
    return fromPromise(reauthenticate()).pipe(
      switchMap((ok) => {
        if (!ok) return throwError(() => error);
        operation.setContext({ renewed: true });
        return forward(operation);
      }),
    );
  });
  const link = ApolloLink.split(
    (op) => op.operationType === 'subscription',
    new GraphQLWsLink(wsClient),
    ApolloLink.from([renew, auth, http]),
  );
  return new ApolloClient({
    link,
    cache: new InMemoryCache({
      typePolicies: {
        Query: { fields: { conversations: { keyArgs: ['orderBy', 'where'] } } },
      },
    }),
  });
}
