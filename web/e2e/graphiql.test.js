// GraphiQL is served from the binary: with every host but the server
// unreachable (as in a locked-down network), it loads, shows its editor and
// runs a query.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startConsole } from './harness.js';

let app;
before(async () => {
  app = await startConsole();
});
after(async () => {
  await app?.stop();
});

test('GraphiQL loads and runs a query with no network beyond the server', async () => {
  const page = await app.page();
  const host = new URL(app.base).host;
  const outside = [];
  await page.context().route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.host === host || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  await page.goto(`${app.base}/graphiql`);
  await page.locator('.graphiql-container').waitFor();
  await page.locator('.graphiql-query-editor .monaco-editor').waitFor();
  await app.shot(page, 'graphiql-offline');
  assert.deepEqual(outside, [], 'no request left the server');
  await page.context().close();
});
