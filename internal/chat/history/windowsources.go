package history

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/edgefilter"
	"github.com/ragchat/ragchat/internal/sqlvalue"
)

// Aliases of the source flags that selectWindowSources adds.
const (
	colWindowUnreadable = "window_source_unreadable"
	colWindowCited      = "window_source_cited"
)

// selectWindowSources adds to the window read, per answer, whether one of
// its sources can no longer be read by the viewer and whether it cited
// one, so that the window needs no statements of its own for the sources
// and their re-authorisation (docs/ENGINE.md D13, "Statements per ask").
// Both are EXISTS subqueries over the answer's sources, limited to the
// sources the viewer may see; a source is unreadable when its chunk is
// gone or is not among the chunks the viewer may read now. Row visibility
// comes from internal/authz, through the same edge filter that Ent's edge
// predicates apply (source.HasChunk is one), so the window cannot disagree
// with the privacy policies. ctx is passed because Ent runs modifiers
// before it sets the query's context on the selector.
func selectWindowSources(ctx context.Context) func(*sql.Selector) {
	return func(s *sql.Selector) {
		sources := func(p predicate.Source) *sql.Selector {
			src := sql.Dialect(s.Dialect()).Select(source.FieldID).From(sql.Table(source.Table)).WithContext(ctx)
			src.Where(sql.ColumnsEQ(src.C(source.FieldAttemptID), s.C(message.FieldAttemptID)))
			edgefilter.Restrict(source.Table)(src)
			p(src)
			return src
		}
		s.AppendSelectExprAs(sql.Exists(sources(source.Or(source.ChunkIDIsNil(), source.Not(source.HasChunk())))), colWindowUnreadable)
		s.AppendSelectExprAs(sql.Exists(sources(source.Cited(true))), colWindowCited)
	}
}

// windowSourceFlags returns, per attempt of the answers in msgs, whether
// every source it was given is still readable and whether it cited any,
// as selectWindowSources read them.
func windowSourceFlags(msgs []*ent.Message) (readable, cited map[uuid.UUID]bool, err error) {
	readable = make(map[uuid.UUID]bool, len(msgs))
	cited = make(map[uuid.UUID]bool, len(msgs))
	for _, m := range msgs {
		if m.AttemptID == nil || m.Role != message.RoleASSISTANT {
			continue
		}
		unreadable, err := m.Value(colWindowUnreadable)
		if err != nil {
			return nil, nil, fmt.Errorf("window: answer %s: %w", m.ID, err)
		}
		c, err := m.Value(colWindowCited)
		if err != nil {
			return nil, nil, fmt.Errorf("window: answer %s: %w", m.ID, err)
		}
		readable[*m.AttemptID] = !sqlvalue.Bool(unreadable)
		cited[*m.AttemptID] = sqlvalue.Bool(c)
	}
	return readable, cited, nil
}
