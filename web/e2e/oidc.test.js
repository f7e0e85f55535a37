// The production sign-in against a real OpenID Connect issuer running
// locally (internal/tools/oidcissuer): the server runs in production (no
// development sign-in) and verifies the issuer's RS256 tokens with its
// JWKS; the sign-in page offers OpenID Connect, and the authorization code
// flow with PKCE (authorize → callback → token) signs the user in, after
// which the chat works with the access token. A token signed by another
// key is refused by the API and sends the console to the sign-in page.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createInterface } from 'node:readline';
import { goBinary } from '../../clients/node/lib/gobin.js';
import { after, before, test } from 'node:test';
import { ask, gql, newConversation, startConsole, watchStreaming } from './harness.js';

const clientId = 'ragchat-console';
const audience = 'ragchat';

/**
 * startIssuer builds and runs internal/tools/oidcissuer on a free port and
 * returns its issuer URL and stop().
 */
async function startIssuer() {
  const bin = goBinary('./internal/tools/oidcissuer');
  const child = spawn(bin, ['-client-id', clientId, '-audience', audience, '-subject', 'oidc-user', '-tenant', 'demo', '-roles', 'member'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolveURL, reject) => {
    const timer = setTimeout(() => reject(new Error('the OIDC issuer did not start')), 60_000);
    child.on('exit', (code) => reject(new Error(`oidcissuer exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolveURL(line.trim());
    });
  });
  return {
    url,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** jwt signs claims as an RS256 JWT with key, naming kid. */
function jwt(claims, key, kid) {
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

let issuer;
let app;
before(async () => {
  issuer = await startIssuer();
  app = await startConsole({
    RAGCHAT_ENV: 'production',
    // Production verification: the issuer's keys, iss and aud only.
    RAGCHAT_JWT_HS256_SECRET: '',
    RAGCHAT_JWT_JWKS_URL: `${issuer.url}/jwks`,
    RAGCHAT_JWT_ISSUER: issuer.url,
    RAGCHAT_JWT_AUDIENCE: audience,
    RAGCHAT_OIDC_ISSUER: issuer.url,
    RAGCHAT_OIDC_CLIENT_ID: clientId,
  });
});
after(async () => {
  await app?.stop();
  await issuer?.stop();
});

test('OpenID Connect sign-in (code + PKCE) against a real issuer, then the chat works with the access token', async () => {
  const page = await app.page();
  // Every request the page makes (the issuer's redirects included).
  const requests = [];
  page.on('request', (r) => requests.push({ url: r.url(), method: r.method(), body: r.postData() }));
  await page.goto(`${app.base}/`);
  await page.waitForURL(/\/signin$/);
  const button = page.getByRole('button', { name: '使用单位账号登录' });
  await button.waitFor();
  assert.equal(await page.locator('[data-testid^=signin-]').count(), 0, 'no development sign-in in production');
  await app.shot(page, 'oidc-signin-page');
  await button.click();
  await page.getByTestId('viewer').filter({ hasText: 'oidc-user' }).waitFor();
  await app.shot(page, 'oidc-signed-in');

  // The browser went to the issuer's authorize endpoint with an S256
  // challenge, came back to the console's callback with a code, and the
  // console exchanged it with its code_verifier.
  const urls = requests.map((r) => r.url).join('\n');
  const authorize = new URL(requests.find((r) => r.url.startsWith(`${issuer.url}/authorize?`))?.url ?? 'http://none/');
  assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256', urls);
  assert.equal(authorize.searchParams.get('client_id'), clientId);
  assert.equal(authorize.searchParams.get('redirect_uri'), `${app.base}/signin`);
  const callback = requests.find((r) => r.url.startsWith(`${app.base}/signin?`));
  assert.ok(callback && new URL(callback.url).searchParams.has('code'), `the callback with a code:\n${urls}`);
  const exchange = requests.find((r) => r.url === `${issuer.url}/token` && r.method === 'POST');
  const form = new URLSearchParams(exchange?.body ?? '');
  assert.equal(form.get('code'), new URL(callback.url).searchParams.get('code'));
  assert.ok((form.get('code_verifier') ?? '').length >= 43, 'the token request proves the PKCE verifier');

  // The console's bearer token is the issuer's access token.
  const token = await page.evaluate(() => sessionStorage.getItem('ragchat.token'));
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  assert.equal(claims.iss, issuer.url);
  assert.equal(claims.aud, audience);
  assert.equal((await gql(app.server.http, token, '{ viewer { userId } }')).viewer.userId, 'oidc-user');

  // The chat works: ask, and the answer streams in over the WebSocket.
  await newConversation(page);
  await watchStreaming(page);
  await ask(page, '上传文件最大是多少？');
  const turn = page.getByTestId('turn').nth(0);
  await turn.getByTestId('answer').waitFor();
  assert.ok((await page.evaluate(() => window.__paints)) > 1, 'the answer streamed in more than one paint');
  assert.match(await turn.getByTestId('answer').innerText(), /20MB/);
  await app.shot(page, 'oidc-answer');
  await page.context().close();
});

test('a token signed by another key is refused: 401 UNAUTHENTICATED, and the console sends to sign-in', async () => {
  // The issuer's kid and claims, but another key's signature.
  const jwks = await (await fetch(`${issuer.url}/jwks`)).json();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = Math.floor(Date.now() / 1000);
  const forged = jwt({ iss: issuer.url, aud: audience, sub: 'oidc-user', tenant: 'demo', roles: ['admin'], iat: now, exp: now + 600 }, privateKey, jwks.keys[0].kid);

  const res = await fetch(app.server.http, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${forged}` },
    body: JSON.stringify({ query: '{ viewer { userId } }' }),
  });
  assert.equal(res.status, 401);
  const body = await res.json();
  assert.equal(body.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED', JSON.stringify(body));

  const page = await app.page();
  await page.goto(`${app.base}/signin`);
  await page.evaluate((t) => sessionStorage.setItem('ragchat.token', t), forged);
  await page.goto(`${app.base}/`);
  await page.waitForURL(/\/signin$/);
  await page.getByRole('button', { name: '使用单位账号登录' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('ragchat.token')), null, 'the refused token was dropped');
  await app.shot(page, 'oidc-forged-token-refused');
  await page.context().close();
});
