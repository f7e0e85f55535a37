// Starts real `ragchat serve` processes for the client tests: it builds the
// binary from this repository, runs it with the offline model and the demo
// knowledge base on a throwaway database (a fresh PostgreSQL database when
// RAGCHAT_TEST_DATABASE_URL is set, as `make test` does, else SQLite), and
// mints tokens with `ragchat token` against the same secret. startCluster
// starts several servers on one fresh PostgreSQL database, as replicas
// behind a load balancer.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { goBinary } from './gobin.js';

const secret = 'node-client-test-secret-0123456789abcdef';
// brokerSecret seals the broker's frames; the servers of a cluster, which
// have data directories of their own, must share it.
const brokerSecret = 'node-client-test-broker-secret-0123456789abcdef';

// binary is the ragchat binary (goBinary: prebuilt, or built once per
// test process).
function binary() {
  return goBinary('./cmd/ragchat');
}

// extraEnv adds or overrides ragchat's environment (e.g.
// RAGCHAT_WS_INIT_TIMEOUT). With options.databaseURL the server uses that
// database (shared with other servers, left in place when it stops)
// instead of a fresh one of its own.
export async function startServer(extraEnv = {}, { databaseURL } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ragchat-node-'));
  const bin = binary();
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? dir,
    RAGCHAT_ADDR: '127.0.0.1:0',
    RAGCHAT_DATA_DIR: dir,
    RAGCHAT_JWT_HS256_SECRET: secret,
    RAGCHAT_BROKER_SECRET: brokerSecret,
    RAGCHAT_OFFLINE_TOKEN_DELAY: '5ms',
    RAGCHAT_ASK_BURST: '100',
    ...extraEnv,
  };
  const pg = !databaseURL && process.env.RAGCHAT_TEST_DATABASE_URL ? createDatabase(process.env.RAGCHAT_TEST_DATABASE_URL) : null;
  if (pg) env.DATABASE_URL = pg.url;
  if (databaseURL) env.DATABASE_URL = databaseURL;
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
    metrics: `http://${addr}/metrics`,
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

// startCluster starts n servers, one after the other, on one fresh
// PostgreSQL database (RAGCHAT_TEST_DATABASE_URL is required) with the
// broker of extraEnv (the postgres broker by default), so that an answer
// asked on one can be followed, resumed and cancelled on the others.
// stop() stops every server, then drops the database.
export async function startCluster(n, extraEnv = {}) {
  const admin = process.env.RAGCHAT_TEST_DATABASE_URL;
  if (!admin) throw new Error('startCluster needs RAGCHAT_TEST_DATABASE_URL (a PostgreSQL server)');
  const pg = createDatabase(admin);
  const servers = [];
  try {
    for (let i = 0; i < n; i++) {
      servers.push(await startServer({ RAGCHAT_BROKER: 'postgres', ...extraEnv }, { databaseURL: pg.url }));
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    pg.drop();
    throw err;
  }
  return {
    servers,
    token: servers[0].token,
    async stop() {
      const results = await Promise.all(servers.map((s) => s.stop()));
      pg.drop();
      return results;
    },
  };
}

// startNATS builds internal/tools/natsserver (a real NATS server from the
// nats-server Go module, already a dependency: nothing is downloaded) and
// runs it on a free port. It returns the client URL and stop().
export async function startNATS() {
  const bin = goBinary('./internal/tools/natsserver');
  const child = spawn(bin, [], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolveURL, reject) => {
    const timer = setTimeout(() => reject(new Error('the NATS server did not start')), 60_000);
    child.on('exit', (code) => reject(new Error(`natsserver exited with ${code}`)));
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

// metricValue sums the samples of a Prometheus metric (every label set)
// on a server's /metrics page.
export async function metricValue(server, name) {
  const res = await fetch(server.metrics);
  const text = await res.text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/);
    if (m && m[1] === name) sum += Number(m[3]);
  }
  return sum;
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
