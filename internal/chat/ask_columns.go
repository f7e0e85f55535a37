package chat

import (
	"encoding/json"
	"fmt"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"entgo.io/ent/schema/field"
)

// specColumns renders the row of an Ent create spec (from a builder's
// Prepare) as the columns and values of an INSERT, as sqlgraph's own
// create writes them: the id, every field (a JSON field encoded as
// json.Marshal encodes it, which is how sqlgraph stores it), and the
// foreign keys of the edges whose column is in the row's table (many-to-one
// and inverse one-to-one). A spec that would need more than that one
// INSERT (an edge stored in another table, an ON CONFLICT clause, no id)
// is an error: specColumns renders one row, not a create.
func specColumns(spec *sqlgraph.CreateSpec) ([]string, []any, error) {
	if spec.ID == nil || spec.ID.Value == nil || len(spec.OnConflict) > 0 {
		return nil, nil, fmt.Errorf("insert into %s: the spec has no id or an ON CONFLICT clause", spec.Table)
	}
	cols := make([]string, 0, 1+len(spec.Fields)+len(spec.Edges))
	vals := make([]any, 0, cap(cols))
	cols, vals = append(cols, spec.ID.Column), append(vals, spec.ID.Value)
	for _, f := range spec.Fields {
		v := f.Value
		if f.Type == field.TypeJSON {
			buf, err := json.Marshal(v)
			if err != nil {
				return nil, nil, fmt.Errorf("insert into %s: marshal value for column %s: %w", spec.Table, f.Column, err)
			}
			v = json.RawMessage(buf)
		}
		cols, vals = append(cols, f.Column), append(vals, v)
	}
	for _, e := range spec.Edges {
		switch {
		case e.Rel == sqlgraph.M2O, e.Rel == sqlgraph.O2O && (e.Inverse || e.Bidi):
			cols, vals = append(cols, e.Columns[0]), append(vals, e.Target.Nodes[0])
		default:
			return nil, nil, fmt.Errorf("insert into %s: the edge stored in %s needs a statement of its own", spec.Table, e.Table)
		}
	}
	return cols, vals, nil
}
