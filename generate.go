// Package ragchat is the module root; it holds no code. Its go:generate
// steps regenerate every generated file, in the order they depend on each
// other, when `go generate ./...` (or `make generate`) runs here:
//
//  1. ent/entc.go generates the Ent client (ent/), the entgql schema
//     (graph/ent.graphqls) and gqlgen.yml's autobind entries from
//     ent/schema;
//  2. gqlgen generates the executable schema and models (graph/) and the
//     resolver files (resolvers/*.resolvers.go: the signatures, around the
//     hand-written bodies it keeps) from schema/*.graphqls and the
//     graph/ent.graphqls of step 1;
//  3. internal/gqlexec/gen.go makes the list marshalers of
//     gqlexec.SequentialLists in graph/generated.go render their elements
//     in order instead of one goroutine per element.
//
// These are the only go:generate directives of the module
// (scripts/check-generate.sh checks that), so the order cannot depend on
// how `go generate ./...` orders packages.
package ragchat

//go:generate go run -mod=mod ./ent/entc.go
//go:generate go tool gqlgen generate
//go:generate go run ./internal/gqlexec/gen.go
