// Vite builds the console into internal/webui/dist, which the Go binary
// embeds (go:embed): `ragchat serve` needs no Node. The build is
// reproducible (no timestamps, content-hashed names), so `make web` and the
// check in scripts/web.sh check compare it byte for byte.
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Plugin } from 'vite';

const outDir = '../internal/webui/dist';

// sortedManifest rewrites dist/.vite/manifest.json with its keys in sorted
// order once the build is written. Vite appends the entries of the worker
// bundles (Monaco's editor, JSON and GraphQL workers) in the order the
// workers finish building, which varies from run to run; sorted, the
// manifest is the same bytes every time.
function sortedManifest(): Plugin {
  return {
    name: 'ragchat-sorted-manifest',
    apply: 'build',
    closeBundle() {
      const file = resolve(__dirname, outDir, '.vite/manifest.json');
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const sorted = Object.fromEntries(Object.keys(manifest).sort().map((k) => [k, manifest[k]]));
      writeFileSync(file, JSON.stringify(sorted, undefined, 2));
    },
  };
}

export default defineConfig({
  plugins: [react(), sortedManifest()],
  base: '/',
  build: {
    outDir,
    emptyOutDir: true,
    sourcemap: false,
    // dist/.vite/manifest.json: which chunks and CSS each entry loads,
    // statically or on demand. web/scripts/bundle-size.js reads it to check the
    // chat's budget (scripts/web.sh size); it is deterministic like the
    // rest of the build, and the server never serves it.
    manifest: true,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // The console, and GraphiQL served from the binary (no CDN).
      input: { index: 'index.html', graphiql: 'graphiql.html' },
      // GraphiQL's packages carry React Compiler directives that a bundle
      // cannot keep; they only opt modules out of an optimisation.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      output: {
        // Monaco (GraphiQL's editor) is one 2.8 MB module graph; split it
        // so that no committed file reaches the 2 MiB limit of
        // scripts/check-tracked.sh.
        // Keep module execution order across the split chunks (Monaco's
        // modules depend on being initialised in import order).
        strictExecutionOrder: true,
        advancedChunks: {
          groups: [{ name: 'monaco', test: /node_modules[\\/]monaco-editor/, maxSize: 1_900_000 }],
        },
      },
    },
  },
  server: {
    // The dev server may serve the TypeScript client's sources, which the
    // console imports (src/stream/attemptStream.ts re-exports its merge).
    fs: { allow: ['.', '../clients/ts/src'] },
    // `npm run dev` proxies the API to a running `ragchat serve`.
    proxy: {
      '/graphql': { target: 'http://127.0.0.1:8080', ws: true },
      '/console-config.json': 'http://127.0.0.1:8080',
      '/dev': 'http://127.0.0.1:8080',
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
