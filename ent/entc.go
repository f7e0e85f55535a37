//go:build ignore

// This program generates the Ent client, the entgql GraphQL schema
// (graph/ent.graphqls) and the gqlgen autobind configuration. It is the
// first step of the module root's generate.go: run `go generate ./...`
// from the module root, whose paths the ones below are relative to.
package main

import (
	"log"
	"os"
	"path/filepath"
	"regexp"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ragchat/ragchat/internal/gqlnames"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithWhereInputs(true),
		entgql.WithSchemaPath("graph/ent.graphqls"),
		entgql.WithConfigPath("gqlgen.yml"),
		entgql.WithNodeDescriptor(false),
		// One casing for the whole schema (docs/API.md, "Naming"):
		// conversationId, sourceUri, conversationIdIn, as in the
		// hand-written schema/*.graphqls.
		entgql.WithSchemaHook(func(_ *gen.Graph, s *ast.Schema) error {
			gqlnames.Rename(s)
			nonNullTags(s)
			return nil
		}),
	)
	if err != nil {
		log.Fatalf("entgql extension: %v", err)
	}
	err = entc.Generate("./ent/schema", &gen.Config{
		// Runs before entgql's own hook and templates, so that the
		// GraphQL types and the field collection agree on the names.
		Hooks: []gen.Hook{lowerCamelIDs},
		Features: []gen.Feature{
			gen.FeaturePrivacy,
			gen.FeatureEntQL,
			gen.FeatureIntercept,
			gen.FeatureVersionedMigration,
			gen.FeatureLock,
			gen.FeatureUpsert,
			gen.FeatureNamedEdges,
			gen.FeatureExecQuery,
			gen.FeatureModifier,
		},
	}, entc.Extensions(ex), entc.TemplateFiles("ent/template/edgeprivacy.tmpl", "ent/template/prepare.tmpl"))
	if err != nil {
		log.Fatalf("ent codegen: %v", err)
	}
}

// nonNullTags makes Conversation.tags a non-null list (docs/API.md,
// "Organising conversations"): a conversation without tags, or read by a
// support agent, has [], never null.
func nonNullTags(s *ast.Schema) {
	if t := s.Types["Conversation"]; t != nil {
		if f := t.Fields.ForName("tags"); f != nil && f.Type.Elem != nil {
			f.Type = ast.NonNullListType(f.Type.Elem, nil)
		}
	}
}

// lowerCamelIDs gives every entity field whose default GraphQL name breaks
// the naming convention (conversationID, sourceURI) an entgql mapping to
// the conventional name (conversationId, sourceUri). The mapping renames
// the field both in the schema and in the generated field collection; the
// schema hook above renames the where-input fields, which entgql derives
// from the field names by itself.
func lowerCamelIDs(next gen.Generator) gen.Generator {
	camel := gen.Funcs["camel"].(func(string) string)
	return gen.GenerateFunc(func(g *gen.Graph) error {
		for _, t := range g.Nodes {
			for _, f := range t.Fields {
				name := camel(f.Name)
				if gqlnames.Name(name) == name {
					continue
				}
				ant := &entgql.Annotation{}
				if f.Annotations == nil {
					f.Annotations = gen.Annotations{}
				}
				if raw := f.Annotations[ant.Name()]; raw != nil {
					if err := ant.Decode(raw); err != nil {
						return err
					}
				}
				if len(ant.Mapping) == 0 {
					ant.Mapping = []string{gqlnames.Name(name)}
				}
				f.Annotations[ant.Name()] = ant
			}
		}
		if err := next.Generate(g); err != nil {
			return err
		}
		return renameWhereInputTags(filepath.Join(g.Config.Target, "gql_where_input.go"))
	})
}

// jsonTag matches the JSON tags of the generated where-input structs.
var jsonTag = regexp.MustCompile(`json:"([A-Za-z0-9]+)(,omitempty)?"`)

// renameWhereInputTags gives the where-input structs' JSON tags the
// conventional names too (conversationIdIn, not conversationIDIn), so that
// a where-input marshalled in Go reads like the GraphQL input it mirrors.
// The renamed tags have the same length, so gofmt's alignment holds.
func renameWhereInputTags(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out := jsonTag.ReplaceAllFunc(src, func(m []byte) []byte {
		sub := jsonTag.FindSubmatch(m)
		return []byte(`json:"` + gqlnames.Name(string(sub[1])) + string(sub[2]) + `"`)
	})
	return os.WriteFile(path, out, 0o644)
}
