package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/ragchat/ragchat/ent/modelprofile"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// ModelProfile is one chat model a tenant offers (docs/API.md, "Model
// profiles"): a server-configured endpoint (by name; its base URL and key
// live in the server's configuration, never here), the model name on it,
// its context window, the bounds and defaults of the sampling parameters
// and the prices the usage ledger charges. Admins manage profiles; other
// viewers see only enabled ones open to one of their groups.
type ModelProfile struct{ ent.Schema }

// Mixin of the ModelProfile.
func (ModelProfile) Mixin() []ent.Mixin {
	return []ent.Mixin{IDMixin{}, TenantMixin{}, TimeMixin{}}
}

// Fields of the ModelProfile.
func (ModelProfile) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(64).
			Comment("The profile's name, unique in its tenant."),
		field.String("endpoint").NotEmpty().MaxLen(64).
			Comment("The name of a server-configured endpoint (RAGCHAT_MODEL_ENDPOINTS); offline is the built-in model."),
		field.String("model").NotEmpty().MaxLen(128).
			Comment("The model name sent to the endpoint."),
		field.Int("context_window").Default(0).NonNegative().
			Comment("The model's context window in tokens; 0 takes the model registry's."),
		field.Float("temperature_min").Default(0),
		field.Float("temperature_max").Default(2),
		field.Float("temperature_default").Default(0.2),
		field.Float("top_p_min").Default(0),
		field.Float("top_p_max").Default(1),
		field.Float("top_p_default").Default(1),
		field.Int("max_answer_tokens_max").Default(0).NonNegative().
			Comment("The largest max answer tokens an ask may choose; 0: the tenant's maxAnswerTokens."),
		field.Int("max_answer_tokens_default").Default(0).NonNegative().
			Comment("The answer cap when nothing chooses one; 0: the tenant's maxAnswerTokens."),
		field.Int64("price_input_per_m").Default(0).NonNegative().
			Comment("Price of 1M prompt tokens in micro-units."),
		field.Int64("price_output_per_m").Default(0).NonNegative().
			Comment("Price of 1M completion tokens in micro-units."),
		field.Bool("enabled").Default(true),
		field.JSON("allowed_groups", []string{}).Optional().
			Comment("The groups whose members may use the profile; empty: every member of the tenant."),
		field.Bool("is_default").Default(false).
			Comment("The tenant default: what asks use when neither the ask nor the conversation names a profile."),
	}
}

// Indexes of the ModelProfile.
func (ModelProfile) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("tenant_id", "name").Unique(),
	}
}

// Annotations of the ModelProfile: the GraphQL type is written by hand
// (schema/modelprofiles.graphqls), so that no endpoint detail is generated
// into it.
func (ModelProfile) Annotations() []schema.Annotation {
	return []schema.Annotation{entgql.Skip(entgql.SkipAll)}
}

// Policy of the ModelProfile: admins manage profiles; the others read the
// rows internal/authz's scope (modelprofile.Table) leaves them.
func (ModelProfile) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{authz.FilterScope(modelprofile.Table)},
		Mutation: privacy.MutationPolicy{
			authz.DenyIfNotAdmin(),
			authz.FilterScope(modelprofile.Table),
		},
	}
}
