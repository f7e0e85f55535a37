package modelprofile

import (
	entsql "entgo.io/ent/dialect/sql"

	"github.com/ragchat/ragchat/ent/modelprofile"
)

// TenantProfiles is what a caller knows of its tenant's enabled profiles
// before it resolves: whether there is none (asks answer with the server's
// model and the resolver reads nothing), some (the resolver reads the one
// the viewer may use, and refuses when there is none), or that it has not
// read it (the resolver reads it when it needs it).
type TenantProfiles int8

// The three states of TenantProfiles.
const (
	TenantUnknown TenantProfiles = iota
	TenantNone
	TenantSome
)

// TenantProfilesColumn is a column for a caller's own statement (the ask's
// one read, internal/chat's loadAskTarget) that says, as text, whether the
// tenant whose id is in tenantColumn has an enabled profile: "1", or "".
// It reads the same fact as the resolver's system count (JobModelProfile),
// in the tenant of the row the viewer's privacy rules let the caller read,
// and shows no profile: only whether an ask without a choice answers with
// the server's model or with a profile.
func TenantProfilesColumn(s *entsql.Selector, tenantColumn string) entsql.Querier {
	b := entsql.Dialect(s.Dialect())
	p := b.Table(modelprofile.Table).As("ask_profile")
	q := b.Select(p.C(modelprofile.FieldID)).From(p).
		Where(entsql.And(
			entsql.ColumnsEQ(p.C(modelprofile.FieldTenantID), tenantColumn),
			entsql.EQ(p.C(modelprofile.FieldEnabled), true),
		))
	return entsql.ExprFunc(func(b *entsql.Builder) {
		b.WriteString("CASE WHEN EXISTS ").Wrap(func(b *entsql.Builder) { b.Join(q) }).WriteString(" THEN '1' ELSE '' END")
	})
}

// TenantProfilesOf reads the text of a TenantProfilesColumn.
func TenantProfilesOf(text string) TenantProfiles {
	if text == "1" {
		return TenantSome
	}
	return TenantNone
}
