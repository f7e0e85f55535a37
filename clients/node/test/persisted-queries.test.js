// Persisted operations with the real Apollo Client persisted-query link
// (docs/API.md, "Persisted operations"): the APQ register-then-hash flow,
// across two replicas on one database when RAGCHAT_TEST_DATABASE_URL is
// set (as in `make test`), an anonymous client that registers nothing
// (the link falls back to plain queries), and RAGCHAT_PERSISTED_ONLY with a manifest in
// Apollo's format, where the manifest's operation runs by hash and any
// other document is PERSISTED_QUERY_NOT_ALLOWED.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { startCluster, startServer } from '../lib/server.js';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

const ME = gql`
  query Me {
    viewer {
      userId
    }
  }
`;
const OPEN = gql`
  query Open {
    __typename
  }
`;
const TENANT = gql`
  query Tenant {
    viewer {
      tenantId
    }
  }
`;

const stops = [];
after(async () => {
  for (const stop of stops.reverse()) await stop();
});

// client returns an Apollo Client with the persisted-query link in front
// of an HttpLink to url (signed in with token, anonymous without), and
// the bodies of the requests it sent.
function client(url, token) {
  const sent = [];
  const recording = async (input, init) => {
    sent.push(JSON.parse(init.body));
    return fetch(input, init);
  };
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  const link = createPersistedQueryLink({ sha256 }).concat(new HttpLink({ uri: url, fetch: recording, headers }));
  return { apollo: new ApolloClient({ link, cache: new InMemoryCache() }), sent };
}

// code returns the first GraphQL error code of a failed query.
async function code(promise) {
  try {
    await promise;
  } catch (err) {
    return err.errors?.[0]?.extensions?.code ?? String(err);
  }
  return 'no error';
}

async function servers() {
  if (process.env.RAGCHAT_TEST_DATABASE_URL) {
    const cluster = await startCluster(2);
    stops.push(() => cluster.stop());
    return { a: cluster.servers[0], b: cluster.servers[1], token: cluster.token('node-apq') };
  }
  const s = await startServer();
  stops.push(() => s.stop());
  return { a: s, b: s, token: s.token('node-apq') };
}

let registered; // the text Apollo sent for ME, for the manifest test

test('APQ: a hash registered through one replica runs by hash alone on another', async () => {
  const { a, b, token } = await servers();
  const first = client(a.http, token);
  const res = await first.apollo.query({ query: ME });
  assert.equal(res.data.viewer.userId, 'node-apq');
  // The link sent the hash alone, got PERSISTED_QUERY_NOT_FOUND, then sent the query with it.
  assert.equal(first.sent.length, 2);
  assert.equal(first.sent[0].query, undefined);
  assert.equal(typeof first.sent[1].query, 'string');
  const hash = first.sent[0].extensions.persistedQuery.sha256Hash;
  assert.equal(hash, sha256(first.sent[1].query));
  registered = first.sent[1].query;

  const second = client(b.http, token);
  const again = await second.apollo.query({ query: ME });
  assert.equal(again.data.viewer.userId, 'node-apq');
  assert.equal(second.sent.length, 1, 'the other replica knew the hash');
  assert.equal(second.sent[0].query, undefined);
});

test('APQ: an anonymous client registers nothing; the link falls back to the plain query', async () => {
  const s = await startServer();
  stops.push(() => s.stop());
  const anon = client(s.http);
  const res = await anon.apollo.query({ query: OPEN, fetchPolicy: 'network-only' });
  assert.equal(res.data.__typename, 'Query');
  // The hash alone was PERSISTED_QUERY_NOT_SUPPORTED: the link sent the
  // plain query, without the hash, and sends no hash from then on.
  assert.equal(anon.sent.length, 2);
  assert.equal(anon.sent[0].query, undefined);
  assert.equal(typeof anon.sent[1].query, 'string');
  assert.equal(anon.sent[1].extensions?.persistedQuery, undefined);
  await anon.apollo.query({ query: OPEN, fetchPolicy: 'network-only' });
  assert.equal(anon.sent.length, 3);
  assert.equal(anon.sent[2].extensions?.persistedQuery, undefined);

  // Nothing was stored: a signed-in client registers the hash itself.
  const member = client(s.http, s.token('node-apq-member'));
  await member.apollo.query({ query: OPEN, fetchPolicy: 'network-only' });
  assert.equal(member.sent.length, 2, 'the hash was unknown after the anonymous queries');
  assert.equal(typeof member.sent[1].query, 'string');

  // A registered hash runs for an anonymous client by hash alone.
  const reader = client(s.http);
  const again = await reader.apollo.query({ query: OPEN, fetchPolicy: 'network-only' });
  assert.equal(again.data.__typename, 'Query');
  assert.equal(reader.sent.length, 1);
  assert.equal(reader.sent[0].query, undefined);
});

test('persisted-only mode runs the manifest and refuses anything else', async () => {
  assert.ok(registered, 'the APQ test ran first');
  const dir = mkdtempSync(join(tmpdir(), 'ragchat-manifest-'));
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = join(dir, 'manifest.json');
  writeFileSync(
    manifest,
    JSON.stringify({
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [{ id: sha256(registered), name: 'Me', type: 'query', body: registered }],
    }),
  );
  const s = await startServer({ RAGCHAT_PERSISTED_MANIFEST: manifest, RAGCHAT_PERSISTED_ONLY: 'true' });
  stops.push(() => s.stop());
  const token = s.token('node-apq');

  const c = client(s.http, token);
  const res = await c.apollo.query({ query: ME });
  assert.equal(res.data.viewer.userId, 'node-apq');
  assert.equal(c.sent.length, 1, 'the manifest operation ran by hash alone');

  const other = client(s.http, token);
  assert.equal(await code(other.apollo.query({ query: TENANT })), 'PERSISTED_QUERY_NOT_ALLOWED');

  const plain = await fetch(s.http, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ viewer { userId } }' }),
  });
  const body = await plain.json();
  assert.equal(body.errors[0].extensions.code, 'PERSISTED_QUERY_NOT_ALLOWED');
  assert.equal('data' in body, false);
});
