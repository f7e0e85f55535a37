package gqlexec

import (
	"bytes"
	"fmt"
	"go/format"
	"regexp"
)

// SequentialLists are the GraphQL element types whose lists the generated
// executor renders with MarshalSlice instead of gqlgen's one goroutine per
// element. An element type belongs here only if nothing under it waits per
// element: MessageEdge (the messages and currentPath pages) is a cursor
// and a Message whose fields are struct reads, edges Ent loaded with the
// page, and Message.siblings, which reads every sibling group of the
// operation in one statement (resolvers/siblings.go).
var SequentialLists = []string{"MessageEdge"}

const (
	concurrentCall = "graphql.MarshalSliceConcurrently("
	sequentialCall = "gqlexec.MarshalSlice("
	importLine     = "\t\"github.com/ragchat/ragchat/internal/gqlexec\"\n"
)

// deferredGroup matches an object marshaler's deferred group made right
// after its fields are collected.
var deferredGroup = regexp.MustCompile(`(fields := graphql\.CollectFields\([^\n]*\)\n(?:[^\n]*\n){0,3}?\s*)deferred := graphql\.NewDeferredGroup\(ctx\)`)

// RewriteSequentialLists returns the generated executor src with the list
// marshalers of the given element types calling MarshalSlice, every
// object's deferred group made by NewDeferredGroup, and the import they
// need. It fails if a type has no list marshaler in src (a
// renamed type must not silently go back to goroutines) and is idempotent.
func RewriteSequentialLists(src []byte, types []string) ([]byte, error) {
	out := src
	for _, t := range types {
		re := regexp.MustCompile(`(?m)^func \(ec \*executionContext\) marshal[NO]` + regexp.QuoteMeta(t) + `2ᚕ[^(]*\(`)
		locs := re.FindAllIndex(out, -1)
		if len(locs) == 0 {
			return nil, fmt.Errorf("gqlexec: no list marshaler for %s in the generated executor", t)
		}
		var b bytes.Buffer
		last := 0
		for _, loc := range locs {
			end := bytes.Index(out[loc[1]:], []byte("\n}\n"))
			if end < 0 {
				return nil, fmt.Errorf("gqlexec: unterminated list marshaler for %s", t)
			}
			end += loc[1]
			b.Write(out[last:loc[0]])
			b.Write(bytes.Replace(out[loc[0]:end], []byte(concurrentCall), []byte(sequentialCall), 1))
			last = end
		}
		b.Write(out[last:])
		out = b.Bytes()
	}
	// Every object's deferred group, where its collected fields are in
	// scope.
	out = deferredGroup.ReplaceAll(out, []byte("${1}deferred := gqlexec.NewDeferredGroup(ctx, fields)"))
	if !bytes.Contains(out, []byte(importLine)) {
		// Beside the module's other imports, where goimports puts it.
		i := bytes.Index(out, []byte("\n\t\"github.com/ragchat/ragchat/internal/"))
		if i < 0 {
			return nil, fmt.Errorf("gqlexec: no import of the module's internal packages in the generated executor")
		}
		i++
		out = append(out[:i:i], append([]byte(importLine), out[i:]...)...)
	}
	return format.Source(out)
}
