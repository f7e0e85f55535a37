package chat

import (
	"context"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
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
	seq, _, err := e.bump(ctx, tx, b, false)
	return seq, err
}

// pendingUserMessages is the number of USER messages after the summary's
// coverage, as a RETURNING expression of the conversation's UPDATE: what
// the summariser counts to decide whether a fold is due (summary.Due). The
// messages are the conversation's own, which the statement has just
// locked and authorised.
const pendingUserMessages = `(SELECT COUNT(*) FROM "messages" WHERE "messages"."conversation_id" = "conversations"."id"` +
	` AND "messages"."role" = 'USER' AND "messages"."sequence_no" > "conversations"."summary_message_sequence")`

// bumpCounting is bumpSequence for the completion transaction: it also
// returns the conversation's USER messages after the summary's coverage,
// counted in the same statement, so that the work after the answer knows
// without a statement of its own whether a summary fold is due.
func (e *Engine) bumpCounting(ctx context.Context, tx *ent.Tx, b seqBump) (seq int64, pending int, err error) {
	return e.bump(ctx, tx, b, true)
}

// bump is the UPDATE … RETURNING of bumpSequence and bumpCounting.
func (e *Engine) bump(ctx context.Context, tx *ent.Tx, b seqBump, counting bool) (int64, int, error) {
	q, args := sequenceUpdate(e.db.Dialect, b).Returning(conversation.FieldLastSequenceNo).Query()
	if counting {
		// RETURNING is the statement's last clause.
		q += ", " + pendingUserMessages
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
	if counting {
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
	return u.Where(entsql.And(append(preds, extra...)...))
}
