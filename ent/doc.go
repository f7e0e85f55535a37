// Package ent holds the generated Ent client. Schemas live in ./schema;
// ./entc.go generates the rest (run `go generate ./...` from the module
// root, see ../generate.go).
package ent
