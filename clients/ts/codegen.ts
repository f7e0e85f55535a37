// graphql-codegen: the package's operation types from the server's schema
// (schema/*.graphqls, one file per feature, plus entgql's graph/ent.graphqls). Operations are written
// with graphql() in src/operations.ts; their types are generated into
// src/gql, which is committed.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: ['../../schema/*.graphqls', '../../graph/ent.graphqls'],
  documents: ['src/**/*.{ts,tsx}', '!src/gql/**/*'],
  ignoreNoDocuments: false,
  generates: {
    'src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { ID: 'string', Time: 'string', Cursor: 'string', UUID: 'string', Map: 'Record<string, unknown>' },
      },
    },
  },
};

export default config;
