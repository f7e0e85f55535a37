#!/usr/bin/env node
// bundle-size.js reports what each part of the built console costs over
// the network, from Vite's build manifest (internal/webui/dist/.vite/
// manifest.json), and fails when the chat exceeds its budget (issue 10:
// "Chat JavaScript ≤ 250 KB gzipped; the admin part loaded on demand").
//
//   chat      what /, /c/<id> and /signin load before any interaction: the
//             index.html entry, every chunk it imports statically (the
//             <link rel=modulepreload> of the page) and their CSS
//   admin     the chunks /admin loads on demand (the dynamic import of
//             src/admin/AdminApp.tsx and its static imports), less what the
//             chat already loaded
//   graphiql  everything graphiql.html reaches (static and dynamic imports,
//             CSS), less what the chat already loaded
//   other     the remaining on-demand chunks of the chat page (for example
//             the OpenID Connect client, loaded only by its sign-in)
//
// Sizes are gzip level 9 (what Vite's own report uses), in bytes; 1 KB is
// 1,000 bytes. It also fails when the admin chunk is loaded statically by
// the chat (it must stay on demand).
//
//   node web/scripts/bundle-size.js [--json FILE] [--limit-kb 250]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '..', '..', 'internal', 'webui', 'dist');

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const limitKB = Number(opt('--limit-kb', '250'));
const jsonOut = opt('--json', null);

const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));

/** gz returns a file's raw and gzipped sizes. */
const sizes = new Map();
function gz(file) {
  if (!sizes.has(file)) {
    const b = readFileSync(join(dist, file));
    sizes.set(file, { raw: b.length, gzip: gzipSync(b, { level: 9 }).length });
  }
  return sizes.get(file);
}

/**
 * closure returns the files (JS and CSS) that loading the manifest keys
 * roots fetches: their static imports, transitively, and, with dynamic,
 * their dynamic imports as well.
 */
function closure(roots, dynamic) {
  const files = new Set();
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const c = manifest[key];
    if (!c) throw new Error(`bundle-size: the manifest has no entry ${key}`);
    files.add(c.file);
    for (const css of c.css ?? []) files.add(css);
    for (const k of c.imports ?? []) visit(k);
    if (dynamic) for (const k of c.dynamicImports ?? []) visit(k);
  };
  roots.forEach(visit);
  return { files, keys: seen };
}

function total(files) {
  let raw = 0;
  let gzip = 0;
  let js = 0;
  for (const f of files) {
    const s = gz(f);
    raw += s.raw;
    gzip += s.gzip;
    if (f.endsWith('.js')) js += s.gzip;
  }
  return { files: [...files].sort(), raw, gzip, jsGzip: js };
}

const minus = (a, b) => new Set([...a].filter((f) => !b.has(f)));

const chat = closure(['index.html'], false);
const adminKeys = Object.keys(manifest).filter((k) => manifest[k].src?.includes('src/admin/AdminApp'));
if (adminKeys.length !== 1) throw new Error(`bundle-size: expected one admin chunk (src/admin/AdminApp), found ${adminKeys.length}`);
const admin = closure(adminKeys, false);
const graphiql = closure(['graphiql.html'], true);
const chatAll = closure(['index.html'], true);
const other = minus(minus(chatAll.files, chat.files), admin.files);

const report = {
  limitKB,
  chat: total(chat.files),
  admin: total(minus(admin.files, chat.files)),
  graphiql: total(minus(graphiql.files, chat.files)),
  other: total(other),
};

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
console.log('| part | files | raw | gzipped | of which JS |');
console.log('|---|---:|---:|---:|---:|');
for (const name of ['chat', 'admin', 'graphiql', 'other']) {
  const r = report[name];
  console.log(`| ${name} | ${r.files.length} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.jsGzip)} |`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(report, null, 2) + '\n');

let failed = false;
if (report.chat.gzip > limitKB * 1000) {
  console.error(`bundle-size: FAIL: the chat loads ${kb(report.chat.gzip)} gzipped, over its budget of ${limitKB} KB`);
  failed = true;
}
if (adminKeys.some((k) => chat.keys.has(k))) {
  console.error('bundle-size: FAIL: the admin chunk is loaded statically by the chat; it must load on demand');
  failed = true;
}
if (failed) process.exit(1);
console.error(`bundle-size: the chat loads ${kb(report.chat.gzip)} gzipped (budget ${limitKB} KB); the admin part loads on demand`);
