// Package gqlnames holds the naming convention of ragchat's GraphQL schema
// (docs/API.md, "Naming"): every field, argument and input field is
// lowerCamel, and the acronyms ID and URI are written as words when they
// follow another word: conversationId, clientMessageId, sourceUri,
// conversationIdIn. Hand-written parts of the schema follow it by hand;
// ent/entc.go applies Rename to the part entgql generates, whose default
// spelling is conversationID.
package gqlnames

import (
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// acronyms are the upper-case acronyms that the convention writes as words.
var acronyms = []struct{ upper, word string }{
	{"URI", "Uri"},
	{"ID", "Id"},
}

// Name returns name with every acronym that follows a lower-case letter or
// a digit written as a word ("conversationIDIn" becomes
// "conversationIdIn"). An acronym counts only as a whole word: the next
// character is the end, an upper-case letter or a plural "s" ending the
// word ("authorIDs" becomes "authorIds"). Other names are returned as they
// are.
func Name(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); {
		if i > 0 && isLowerOrDigit(name[i-1]) {
			if a, ok := acronymAt(name, i); ok {
				b.WriteString(a.word)
				i += len(a.upper)
				continue
			}
		}
		b.WriteByte(name[i])
		i++
	}
	return b.String()
}

// acronymAt reports the acronym that starts at name[i] as a whole word.
func acronymAt(name string, i int) (struct{ upper, word string }, bool) {
	for _, a := range acronyms {
		if !strings.HasPrefix(name[i:], a.upper) {
			continue
		}
		rest := name[i+len(a.upper):]
		if rest == "" || isUpper(rest[0]) || rest == "s" || (rest[0] == 's' && len(rest) > 1 && isUpper(rest[1])) {
			return a, true
		}
	}
	return struct{ upper, word string }{}, false
}

// Rename applies Name to the fields and arguments of every object and
// interface and to the fields of every input object of s. Type, enum
// value and directive names are left alone. gqlgen still binds a renamed
// field to its Go field, because it matches names case-insensitively
// (conversationId binds ConversationID).
func Rename(s *ast.Schema) {
	for _, def := range s.Types {
		for _, f := range def.Fields {
			f.Name = Name(f.Name)
			for _, arg := range f.Arguments {
				arg.Name = Name(arg.Name)
			}
		}
	}
}

// Violations returns, as "Type.field" or "Type.field(arg)", every field,
// argument and input field of s whose name breaks the convention, that is
// which Name would change. Introspection types are skipped.
func Violations(s *ast.Schema) []string {
	var out []string
	for _, def := range s.Types {
		if strings.HasPrefix(def.Name, "__") {
			continue
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if Name(f.Name) != f.Name {
				out = append(out, def.Name+"."+f.Name)
			}
			for _, arg := range f.Arguments {
				if Name(arg.Name) != arg.Name {
					out = append(out, def.Name+"."+f.Name+"("+arg.Name+")")
				}
			}
		}
	}
	return out
}

func isLowerOrDigit(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
