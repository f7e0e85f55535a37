package server_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// schemaInfo is the introspected schema, as a client sees it.
type schemaInfo struct {
	Types map[string]*typeInfo
}

type typeInfo struct {
	Name          string
	Kind          string
	Fields        []fieldInfo
	InputFields   []inputInfo
	PossibleTypes []struct{ Name string }
}

type fieldInfo struct {
	Name string
	Args []inputInfo
	Type typeRef
}

type inputInfo struct {
	Name         string
	Type         typeRef
	DefaultValue *string
}

// typeRef is a (possibly wrapped) type reference.
type typeRef struct {
	Kind   string
	Name   string
	OfType *typeRef
}

// named returns the innermost named type.
func (r typeRef) named() typeRef {
	for r.OfType != nil {
		r = *r.OfType
	}
	return r
}

// required reports a NON_NULL type.
func (r typeRef) required() bool { return r.Kind == "NON_NULL" }

const introspectionQuery = `
fragment R on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }
{ __schema { types {
	name kind
	fields(includeDeprecated: true) { name type { ...R } args { name defaultValue type { ...R } } }
	inputFields { name defaultValue type { ...R } }
	possibleTypes { name }
} } }`

// introspect reads the schema through the API.
func introspect(t testing.TB, c *gqlclient.Client) *schemaInfo {
	t.Helper()
	var out struct {
		Schema struct{ Types []*typeInfo } `json:"__schema"`
	}
	mustDo(t, c, introspectionQuery, nil, &out)
	s := &schemaInfo{Types: map[string]*typeInfo{}}
	for _, ty := range out.Schema.Types {
		s.Types[ty.Name] = ty
	}
	return s
}

// field returns the field name of type typeName.
func (s *schemaInfo) field(t testing.TB, typeName, name string) fieldInfo {
	t.Helper()
	ty := s.Types[typeName]
	if ty == nil {
		t.Fatalf("no type %s", typeName)
	}
	for _, f := range ty.Fields {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no field %s.%s", typeName, name)
	return fieldInfo{}
}

// isConnection reports a Relay connection field (first and last arguments).
func (f fieldInfo) isConnection() bool {
	var first, last bool
	for _, a := range f.Args {
		first = first || a.Name == "first"
		last = last || a.Name == "last"
	}
	return first && last
}

// selectAll returns a selection set that selects every field of typeName
// and, recursively, of the object, interface and union types beneath it,
// so that every field of every reachable type is selected at least once.
// A type already on the path is cut short to its id (or __typename), which
// keeps the document finite. Fields with required arguments are left out;
// connections get first: 2. The fields of each possible type of an
// interface or union are aliased <Type>_<field>, so that same-named fields
// of different types never conflict.
func (s *schemaInfo) selectAll(typeName string) string {
	var b strings.Builder
	s.writeSelection(&b, typeName, map[string]bool{}, "")
	return b.String()
}

func (s *schemaInfo) writeSelection(b *strings.Builder, typeName string, onPath map[string]bool, alias string) {
	ty := s.Types[typeName]
	if ty == nil {
		b.WriteString("{ __typename }")
		return
	}
	if onPath[typeName] {
		if hasField(ty, "id") {
			fmt.Fprintf(b, "{ %sid: id }", alias)
		} else {
			b.WriteString("{ __typename }")
		}
		return
	}
	onPath[typeName] = true
	defer delete(onPath, typeName)
	b.WriteString("{ __typename")
	switch ty.Kind {
	case "INTERFACE", "UNION":
		names := make([]string, 0, len(ty.PossibleTypes))
		for _, p := range ty.PossibleTypes {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(b, " ... on %s ", n)
			s.writeSelection(b, n, onPath, n+"_")
		}
	default:
		for _, f := range ty.Fields {
			args := ""
			skip := false
			for _, a := range f.Args {
				if a.Type.required() && a.DefaultValue == nil {
					skip = true
				}
			}
			if skip {
				continue
			}
			if f.isConnection() {
				args = "(first: 2)"
			}
			if alias != "" {
				fmt.Fprintf(b, " %s%s:", alias, f.Name)
			}
			fmt.Fprintf(b, " %s%s", f.Name, args)
			if k := f.Type.named().Kind; k == "OBJECT" || k == "INTERFACE" || k == "UNION" {
				b.WriteString(" ")
				s.writeSelection(b, f.Type.named().Name, onPath, "")
			}
		}
	}
	b.WriteString(" }")
}

func hasField(ty *typeInfo, name string) bool {
	for _, f := range ty.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}
