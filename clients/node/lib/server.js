// Starts a real `ragchat serve` process for the client tests: it builds the
// binary from this repository, runs it on a throwaway SQLite database with
// the offline model and the demo knowledge base, and mints tokens with
// `ragchat token` against the same secret.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');
const secret = 'node-client-test-secret-0123456789abcdef';

// extraEnv adds or overrides ragchat's environment (e.g.
// RAGCHAT_WS_INIT_TIMEOUT).
export async function startServer(extraEnv = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ragchat-node-'));
  const bin = join(dir, 'ragchat');
  execFileSync('go', ['build', '-o', bin, './cmd/ragchat'], { cwd: repo, stdio: 'inherit' });
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? dir,
    RAGCHAT_ADDR: '127.0.0.1:0',
    RAGCHAT_DATA_DIR: dir,
    RAGCHAT_JWT_HS256_SECRET: secret,
    RAGCHAT_OFFLINE_TOKEN_DELAY: '5ms',
    RAGCHAT_ASK_BURST: '100',
    ...extraEnv,
  };
  const child = spawn(bin, ['serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const log = [];
  const addr = await new Promise((resolveAddr, reject) => {
    const timer = setTimeout(() => reject(new Error(`ragchat serve did not start:\n${log.join('\n')}`)), 120_000);
    child.on('exit', (code) => reject(new Error(`ragchat serve exited with ${code}:\n${log.join('\n')}`)));
    createInterface({ input: child.stderr }).on('line', (line) => {
      log.push(line);
      try {
        const rec = JSON.parse(line);
        if (rec.msg === 'listening') {
          clearTimeout(timer);
          resolveAddr(rec.addr);
        }
      } catch {
        // not a JSON log line
      }
    });
  });
  const token = (user, ...flags) =>
    execFileSync(bin, ['token', '--tenant', 'demo', '--user', user, ...flags], { env }).toString().trim();
  return {
    http: `http://${addr}/graphql`,
    ws: `ws://${addr}/graphql`,
    token,
    log,
    async stop() {
      const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
      child.kill('SIGTERM');
      const result = await exited;
      rmSync(dir, { recursive: true, force: true });
      return result;
    },
  };
}

// gql runs a query or mutation over HTTP POST and returns data, throwing on
// GraphQL errors.
export async function gql(url, token, query, variables = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (body.errors?.length) throw new Error(JSON.stringify(body.errors));
  return body.data;
}
