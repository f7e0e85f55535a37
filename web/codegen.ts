// graphql-codegen: typed operations from the server's schema. The schema is
// the repository's own (schema/*.graphqls plus entgql's graph/ent.graphqls);
// operations are written with graphql() in src/ and their types are
// generated into src/gql, which is committed and checked by `make web`.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: ['../schema/*.graphqls', '../graph/ent.graphqls'],
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
