// Starts a real `ragchat serve` process for the client tests: it builds the
// binary from this repository, runs it with the offline model and the demo
// knowledge base on a throwaway database (a fresh PostgreSQL database when
// RAGCHAT_TEST_DATABASE_URL is set, as `make test` does, else SQLite), and
// mints tokens with `ragchat token` against the same secret.
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
  const pg = process.env.RAGCHAT_TEST_DATABASE_URL ? createDatabase(process.env.RAGCHAT_TEST_DATABASE_URL) : null;
  if (pg) env.DATABASE_URL = pg.url;
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
      pg?.drop();
      rmSync(dir, { recursive: true, force: true });
      return result;
    },
  };
}

// createDatabase creates a fresh database on the server of adminURL (whose
// role may CREATE DATABASE; the vector extension comes from template1) with
// psql, and returns its URL and a function that drops it.
function createDatabase(adminURL) {
  const name = `ragchat_node_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const psql = (sql) => execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', adminURL, '-c', sql], { stdio: ['ignore', 'ignore', 'inherit'] });
  psql(`CREATE DATABASE ${name}`);
  const url = new URL(adminURL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
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
