package chat

import (
	"context"
	"fmt"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
)

// seqBump is how a transaction advances a conversation: the next sequence
// number, one more version, and optionally a new idle expiry, title and
// current leaf.
type seqBump struct {
	id       uuid.UUID
	tenantID string
	userID   string
	now      time.Time
	// activeOnly refuses a conversation that is no longer ACTIVE.
	activeOnly bool
	expiresAt  *time.Time
	title      *string
	// leaf, when not nil, becomes the conversation's current leaf; with
	// leafFrom only if the current leaf is still leafFrom (a completion
	// moves the leaf to its answer only while the user stays on the
	// question's branch).
	leaf     *uuid.UUID
	leafFrom *uuid.UUID
}

// bumpSequence allocates the conversation's next sequence number inside
// tx with one UPDATE … RETURNING, where Ent's UpdateOne would send an
// UPDATE and then a SELECT of the whole row (docs/ENGINE.md, "Statements
// per ask"). It locks the conversation row like UpdateOne, so Ask and the
// completion transaction keep their lock order. The caller has already
// authorised the conversation through the privacy rules; the statement
// still names the tenant and the owner. No such row is ent.NotFoundError.
func (e *Engine) bumpSequence(ctx context.Context, tx *ent.Tx, b seqBump) (int64, error) {
	seq, _, err := e.bump(ctx, tx, b, "")
	return seq, err
}

// pathPending is the number of USER messages on the answered question's
// path that no summary covers yet, as a RETURNING expression of the
// conversation's UPDATE: what the summariser counts to decide whether a
// fold is due (summary.Due). It walks up from the question (itself
// included) and stops at the nearest ancestor that carries a path summary
// (docs/ENGINE.md, "Summaries on a tree"), so another branch's messages
// and summaries never count; and at minDepth, so the walk is bounded by
// what Due needs to know, whatever the conversation's length. The
// question is the conversation's own, which the statement has just locked
// and authorised; its id and the bound are inlined as literals (a UUID's
// canonical text and an integer), because RETURNING comes after the
// builder's arguments.
func pathPending(question uuid.UUID, minDepth int) string {
	return fmt.Sprintf(`(WITH RECURSIVE "pending_up"("id", "parent_id", "role", "covered") AS (`+
		`SELECT "id", "parent_id", "role", "path_summary" IS NOT NULL FROM "messages" WHERE "id" = '%s'`+
		` UNION ALL SELECT "m"."id", "m"."parent_id", "m"."role", "m"."path_summary" IS NOT NULL`+
		` FROM "messages" AS "m" JOIN "pending_up" ON "m"."id" = "pending_up"."parent_id"`+
		` WHERE NOT "pending_up"."covered" AND "m"."depth" >= %d)`+
		` SELECT COUNT(*) FROM "pending_up" WHERE "role" = 'USER' AND NOT "covered")`, question.String(), minDepth)
}

// pendingBound is how far up pathPending walks from a question at depth
// to decide summary.Due: enough levels for the HistoryRounds +
// SummaryTriggerRounds + 1 rounds (a question and its answer each) that
// make a fold due.
func pendingBound(depth int, st domain.TenantSettings) int {
	return depth - 2*(st.HistoryRounds+st.SummaryTriggerRounds+1)
}

// bumpCounting is bumpSequence for the completion transaction: it also
// returns the USER messages of the question's path after its nearest
// summary (pathPending), counted in the same statement, so that the work
// after the answer knows without a statement of its own whether a summary
// fold is due.
func (e *Engine) bumpCounting(ctx context.Context, tx *ent.Tx, b seqBump, question *ent.Message, st domain.TenantSettings) (seq int64, pending int, err error) {
	return e.bump(ctx, tx, b, pathPending(question.ID, pendingBound(question.Depth, st)))
}

// bump is the UPDATE … RETURNING of bumpSequence and bumpCounting.
func (e *Engine) bump(ctx context.Context, tx *ent.Tx, b seqBump, counting string) (int64, int, error) {
	q, args := sequenceUpdate(e.db.Dialect, b).Returning(conversation.FieldLastSequenceNo).Query()
	if counting != "" {
		// RETURNING is the statement's last clause.
		q += ", " + counting
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, 0, err
		}
		return 0, 0, &ent.NotFoundError{}
	}
	var (
		seq     int64
		pending int
	)
	dest := []any{&seq}
	if counting != "" {
		dest = append(dest, &pending)
	}
	if err := rows.Scan(dest...); err != nil {
		return 0, 0, err
	}
	return seq, pending, rows.Close()
}

// sequenceUpdate is the UPDATE of bumpSequence as a builder, without its
// RETURNING, for a statement that embeds it (the PostgreSQL ask writes it
// as one step of a data-modifying WITH; docs/ENGINE.md, "Statements per
// ask"). extra narrows the WHERE clause further.
func sequenceUpdate(dialect string, b seqBump, extra ...*entsql.Predicate) *entsql.UpdateBuilder {
	u := entsql.Dialect(dialect).Update(conversation.Table).
		Set(conversation.FieldUpdatedAt, b.now).
		Add(conversation.FieldLastSequenceNo, 1).
		Add(conversation.FieldVersion, 1)
	if b.expiresAt != nil {
		u.Set(conversation.FieldExpiresAt, *b.expiresAt)
	}
	if b.title != nil {
		u.Set(conversation.FieldTitle, *b.title)
	}
	switch {
	case b.leaf != nil && b.leafFrom != nil:
		leaf, from := *b.leaf, *b.leafFrom
		u.Set(conversation.FieldCurrentLeafID, entsql.ExprFunc(func(b *entsql.Builder) {
			b.WriteString("CASE WHEN ").Ident(conversation.FieldCurrentLeafID).WriteString(" = ").Arg(from).
				WriteString(" THEN ").Arg(leaf).WriteString(" ELSE ").Ident(conversation.FieldCurrentLeafID).WriteString(" END")
		}))
	case b.leaf != nil:
		u.Set(conversation.FieldCurrentLeafID, *b.leaf)
	}
	preds := []*entsql.Predicate{
		entsql.EQ(conversation.FieldID, b.id),
		entsql.EQ(conversation.FieldTenantID, b.tenantID),
		entsql.EQ(conversation.FieldUserID, b.userID),
	}
	if b.activeOnly {
		preds = append(preds, entsql.EQ(conversation.FieldStatus, conversation.StatusACTIVE.String()))
	} else {
		preds = append(preds, entsql.NEQ(conversation.FieldStatus, conversation.StatusDELETED.String()))
	}
	// A temporary chat past its expiry is gone like a DELETED one
	// (internal/authz/temporary.go).
	preds = append(preds, authz.TemporaryLiveAt(conversation.FieldTemporaryExpiresAt, b.now.UTC()))
	return u.Where(entsql.And(append(preds, extra...)...))
}
