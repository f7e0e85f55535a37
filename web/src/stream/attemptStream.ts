// The seq-aware merge of ragchat's attemptEvents (docs/API.md, "Consuming
// attemptEvents") is the TypeScript client's (@ragchat/client,
// clients/ts/src/merge.ts): the console uses the package's merge instead of
// a copy of its own, so both follow one implementation and one test suite.
export * from '../../../clients/ts/src/merge';
