// The GraphQL-over-HTTP spec's audit suite (graphql-http's serverAudits)
// against a real `ragchat serve`: every MUST and SHOULD audit must pass
// (docs/API.md, "GraphQL over HTTP"). The audits send anonymous requests
// such as `{ __typename }`, which the server answers without a viewer
// (introspection fields need none); an Authorization header is added to
// every request anyway, so that the audits that do reach data run as a
// member.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serverAudits } from 'graphql-http';
import { startServer } from '../lib/server.js';

let server;
let token;

before(async () => {
  server = await startServer();
  token = server.token('node-audits');
});

after(async () => {
  await server.stop();
});

test('graphql-http server audits: every MUST and SHOULD passes', async () => {
  const audits = serverAudits({
    url: server.http,
    fetchFn: (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    },
  });
  const failed = [];
  let counted = { ok: 0, warn: 0, error: 0 };
  for (const audit of audits) {
    const result = await audit.fn();
    counted[result.status] = (counted[result.status] ?? 0) + 1;
    if (result.status !== 'ok') {
      const level = audit.name.split(' ')[0];
      const detail = result.response ? `${result.response.status} ${await result.response.text().catch(() => '')}` : '';
      failed.push(`${result.status} ${audit.id} ${audit.name}: ${result.reason} ${detail}`.trim());
      if (process.env.AUDIT_VERBOSE) console.log(level, failed.at(-1));
    }
  }
  console.log(`graphql-http audits: ${audits.length} run, ${counted.ok} ok, ${counted.warn ?? 0} warn, ${counted.error ?? 0} error`);
  const mustOrShould = failed.filter((f) => / (MUST|SHOULD) /.test(f));
  assert.deepEqual(mustOrShould, [], `audits not ok:\n${failed.join('\n')}`);
});
