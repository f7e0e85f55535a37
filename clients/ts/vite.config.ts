// The package is built with the console's toolchain: Vite in library mode
// bundles src/index.ts and src/react.tsx into ES modules in dist/ (graphql,
// graphql-ws and React stay external), and tsc writes the declarations.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    lib: {
      entry: { index: 'src/index.ts', react: 'src/react.tsx' },
      formats: ['es'],
    },
    rollupOptions: {
      external: [/^graphql($|\/)/, /^graphql-ws($|\/)/, /^react($|\/)/],
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
