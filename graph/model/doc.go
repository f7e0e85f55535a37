// Package model holds the Go types gqlgen generates for the GraphQL input,
// payload, enum and event types of schema/*.graphqls that are not Ent
// entities (those are the ent package's own types, bound in gqlgen.yml).
// Everything in it but this comment is generated (`go generate ./...`) and
// is never edited by hand.
package model
