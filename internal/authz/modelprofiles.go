package authz

import (
	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqljson"

	"github.com/ragchat/ragchat/ent/modelprofile"
	"github.com/ragchat/ragchat/internal/viewer"
)

// usableModelProfiles is the scope of model profiles: admins see every
// profile of their tenant; everyone else sees the enabled profiles whose
// allowed groups are empty (open to the whole tenant) or name one of the
// viewer's groups (docs/API.md, "Model profiles").
func usableModelProfiles(v *viewer.Viewer) func(*sql.Selector) {
	if v.IsAdmin() {
		return nil
	}
	return func(s *sql.Selector) {
		col := s.C(modelprofile.FieldAllowedGroups)
		open := []*sql.Predicate{sql.IsNull(col), sqljson.LenEQ(col, 0)}
		for _, g := range v.Groups {
			open = append(open, sqljson.ValueContains(col, g))
		}
		s.Where(sql.And(sql.EQ(s.C(modelprofile.FieldEnabled), true), sql.Or(open...)))
	}
}
