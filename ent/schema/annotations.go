package schema

// PreparedCreate gives an entity's create builder a Prepare method
// (ent/template/prepare.tmpl): the entity and the sqlgraph.CreateSpec that
// Save would write, with defaults, hooks, privacy policy and checks
// applied, without sending the INSERT. internal/chat writes the USER
// message and the PENDING attempt of an ask that way, as steps of one
// statement (docs/ENGINE.md, "Statements per ask").
type PreparedCreate struct{}

// Name of the PreparedCreate annotation.
func (PreparedCreate) Name() string { return "PreparedCreate" }
