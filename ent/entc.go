//go:build ignore

// This program generates the Ent client, the entgql GraphQL schema
// (../graph/ent.graphqls) and the gqlgen autobind configuration. Run it with
// `go generate ./ent` (or `go generate ./...`) from the module root.
package main

import (
	"log"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithWhereInputs(true),
		entgql.WithSchemaPath("../graph/ent.graphqls"),
		entgql.WithConfigPath("../gqlgen.yml"),
		entgql.WithNodeDescriptor(false),
	)
	if err != nil {
		log.Fatalf("entgql extension: %v", err)
	}
	err = entc.Generate("./schema", &gen.Config{
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
	}, entc.Extensions(ex), entc.TemplateFiles("template/edgeprivacy.tmpl"))
	if err != nil {
		log.Fatalf("ent codegen: %v", err)
	}
}
