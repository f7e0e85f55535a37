//go:build ignore

// gen.go is the generation step after gqlgen (the root generate.go runs it
// from the module root): it rewrites the list marshalers of
// gqlexec.SequentialLists in graph/generated.go to render in order on the
// calling goroutine.
package main

import (
	"log"
	"os"

	"github.com/ragchat/ragchat/internal/gqlexec"
)

func main() {
	const path = "graph/generated.go"
	src, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	out, err := gqlexec.RewriteSequentialLists(src, gqlexec.SequentialLists)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		log.Fatal(err)
	}
}
