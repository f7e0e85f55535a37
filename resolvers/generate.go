package resolvers

// gqlgen regenerates graph/ (the executable schema and models) and the
// resolver stubs in this directory from schema.graphqls and the entgql
// output graph/ent.graphqls. `go generate ./...` runs it after ./ent, whose
// generation writes graph/ent.graphqls and gqlgen.yml.
//go:generate sh -c "cd .. && go tool gqlgen generate"
