package store

import (
	"context"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/folder"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/ent/tag"
	"github.com/ragchat/ragchat/internal/authz"
)

// nodeTables are the tables whose rows are GraphQL nodes.
var nodeTables = []string{
	conversation.Table, message.Table, attempt.Table, source.Table,
	feedback.Table, knowledgebase.Table, document.Table, auditevent.Table,
	supportgrant.Table, tag.Table, folder.Table, attachment.Table,
}

// ErrUnknownNode is returned when no node table holds an id that the actor
// may see.
var ErrUnknownNode = fmt.Errorf("node not found")

// NodeType finds which table holds id among the rows the actor in ctx may
// see, for ent.WithNodeType: one statement, a UNION ALL of primary-key
// lookups, each limited by the visibility predicate the privacy policies
// apply to that table (authz.VisibleRows: tenant, owner, document ACL,
// admin-only tables, support grants, rows of DELETED conversations). An id
// the actor may not see is therefore ErrUnknownNode exactly like one that
// exists nowhere, after the same statement, whose text does not depend on
// the id; only a visible id costs the load that follows (docs/API.md,
// "Privacy and audit"). The statement goes through the Ent client, so the
// statement counters see it.
func (db *DB) NodeType(ctx context.Context, id uuid.UUID) (string, error) {
	query, args := nodeTypeQuery(ctx, db.Dialect, id)
	rows, err := db.Client.QueryContext(ctx, query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", err
		}
		return "", ErrUnknownNode
	}
	var table string
	if err := rows.Scan(&table); err != nil {
		return "", err
	}
	return table, rows.Close()
}

// nodeTypeQuery builds NodeType's statement for the actor in ctx.
func nodeTypeQuery(ctx context.Context, dialect string, id uuid.UUID) (string, []any) {
	b := entsql.Dialect(dialect)
	var union *entsql.Selector
	for _, table := range nodeTables {
		t := b.Table(table)
		s := b.Select().From(t).WithContext(ctx)
		s.AppendSelectExprAs(entsql.Expr(fmt.Sprintf("'%s'", table)), "t")
		s.Where(entsql.EQ(t.C("id"), id))
		if visible := authz.VisibleRows(ctx, table); visible != nil {
			visible(s)
		}
		if union == nil {
			union = s
			continue
		}
		union.UnionAll(s)
	}
	return union.Limit(1).Query()
}
