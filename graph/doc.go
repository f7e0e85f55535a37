// Package graph is gqlgen's executable schema of schema/*.graphqls and
// the entgql schema graph/ent.graphqls: the field resolvers' dispatch, argument
// parsing and result marshalling that resolvers/ plugs into. Everything in
// it but this comment is generated (`go generate ./...`, gqlgen.yml) and is
// never edited by hand.
package graph
