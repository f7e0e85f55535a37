package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/feedback"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/ent/supportgrant"
)

// nodeTables are the tables whose rows are GraphQL nodes.
var nodeTables = []string{
	conversation.Table, message.Table, attempt.Table, source.Table,
	feedback.Table, knowledgebase.Table, document.Table, auditevent.Table,
	supportgrant.Table,
}

// ErrUnknownNode is returned when no node table holds an id.
var ErrUnknownNode = fmt.Errorf("node not found")

// NodeTypeResolver returns a function that finds which table holds a UUID,
// for ent.WithNodeType. It asks every node table in one UNION ALL round trip
// of primary-key lookups. It deliberately ignores privacy: it only picks the
// table, and the privacy-filtered load that follows decides visibility, so
// an id of another tenant still ends as "not found".
func NodeTypeResolver(db *sql.DB, dialect string) func(context.Context, uuid.UUID) (string, error) {
	parts := make([]string, len(nodeTables))
	for i, t := range nodeTables {
		parts[i] = fmt.Sprintf("SELECT '%s' AS t FROM %s WHERE id = %s", t, t, placeholder(dialect))
	}
	query := strings.Join(parts, " UNION ALL ") + " LIMIT 1"
	return func(ctx context.Context, id uuid.UUID) (string, error) {
		args := make([]any, 0, len(nodeTables))
		if dialect == "postgres" {
			args = append(args, id)
		} else {
			for range nodeTables {
				args = append(args, id)
			}
		}
		var table string
		err := db.QueryRowContext(ctx, query, args...).Scan(&table)
		if err == sql.ErrNoRows {
			return "", ErrUnknownNode
		}
		return table, err
	}
}

func placeholder(dialect string) string {
	if dialect == "postgres" {
		return "$1"
	}
	return "?"
}
