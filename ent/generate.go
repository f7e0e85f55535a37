// Package ent holds the generated Ent client. Schemas live in ./schema.
package ent

//go:generate go run -mod=mod entc.go
