package schema

import (
	"time"

	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
	"entgo.io/ent/schema/mixin"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/authz"
)

// NewID returns a new time-ordered (version 7) UUID. Time ordering keeps
// B-tree inserts local and makes ids roughly sortable by creation.
func NewID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// IDMixin gives an entity a UUIDv7 primary key.
type IDMixin struct{ mixin.Schema }

// Fields of the IDMixin.
func (IDMixin) Fields() []ent.Field {
	return []ent.Field{
		field.UUID("id", uuid.UUID{}).Default(NewID).Immutable(),
	}
}

// TimeMixin adds created_at and updated_at.
type TimeMixin struct{ mixin.Schema }

// Fields of the TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(time.Now).Immutable().
			Annotations(entgql.OrderField("CREATED_AT")),
		field.Time("updated_at").Default(time.Now).UpdateDefault(time.Now).
			Annotations(entgql.OrderField("UPDATED_AT")),
	}
}

// TenantMixin scopes an entity to a tenant: it adds tenant_id, the tenant
// edge, and the base policy: a share scope is decided first and alone
// (authz.DecideShareScope), no viewer is denied, system jobs are allowed,
// creates take tenant_id from the viewer (refusing a mismatched one), and
// queries, updates and deletes are filtered to the viewer's tenant.
//
// Setting tenant_id is a policy rule rather than a hook because Ent runs
// the privacy policy before every other hook.
type TenantMixin struct{ mixin.Schema }

// Fields of the TenantMixin.
func (TenantMixin) Fields() []ent.Field {
	return []ent.Field{
		field.String("tenant_id").NotEmpty().Immutable().MaxLen(64).
			Annotations(entgql.Skip()),
	}
}

// Edges of the TenantMixin.
func (TenantMixin) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("tenant", Tenant.Type).Field("tenant_id").Unique().Required().Immutable().
			Annotations(entgql.Skip()),
	}
}

// Policy of the TenantMixin.
func (TenantMixin) Policy() ent.Policy {
	return privacy.Policy{
		Query: privacy.QueryPolicy{
			authz.DecideShareScope(),
			authz.DenyIfNoViewer(),
			authz.AllowIfSystemJob(),
			authz.FilterTenant(),
		},
		Mutation: privacy.MutationPolicy{
			authz.DecideShareScope(),
			authz.DenyIfNoViewer(),
			authz.AllowIfSystemJob(),
			authz.TenantFromViewerOnCreate(),
			authz.DenyCreateOutsideViewer(),
			authz.DenyEmptyUpdate(),
			authz.FilterTenant(),
		},
	}
}

// OwnerMixin marks rows that live beneath a conversation. owner_id copies
// the conversation's user_id so that members are filtered to their own rows
// without a join (the "owner" scope in internal/authz); tenant admins see
// the whole tenant.
type OwnerMixin struct{ mixin.Schema }

// Fields of the OwnerMixin.
func (OwnerMixin) Fields() []ent.Field {
	return []ent.Field{
		field.String("owner_id").NotEmpty().Immutable().MaxLen(128).
			Annotations(entgql.Skip()),
	}
}

// Indexes of the OwnerMixin.
func (OwnerMixin) Indexes() []ent.Index {
	return []ent.Index{index.Fields("tenant_id", "owner_id")}
}
