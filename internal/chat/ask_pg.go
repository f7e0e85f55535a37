package chat

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/viewer"
)

// On PostgreSQL the writes of an ask are one statement (docs/ENGINE.md,
// "Statements per ask"): a data-modifying WITH that charges the ask rate
// (the DBAskLimiter's conditional upsert), bumps the conversation's
// sequence (sequenceUpdate, only if the rate admitted), inserts the USER
// message with that sequence number and the PENDING attempt. Each step
// reads the RETURNING rows of the one before, so a refused rate or a
// conversation that is no longer ACTIVE writes nothing, and the rows are
// locked in the same order as before (the user's rate row, then the
// conversation), which the completion transaction, locking only the
// conversation, cannot deadlock with.
//
// The rows are exactly those Ent would insert: the message and attempt are
// built with the same Ent builders as the Ent path (userMessage,
// newAttempt), given Ent's defaults (ids, timestamps, zero counters),
// checked by the entities' own privacy policy (which also sets tenant_id
// from the viewer and refuses an owner other than the viewer) and by Ent's
// validators, and every field the builder holds becomes a column.
//
// Ent gives an entity its client (for edges such as Attempt.sources) only
// when it creates or reads it. The entities returned are therefore copies
// of a prototype this engine's client created through the Ent path (the
// first ask of a client takes it), with every field set from the builder,
// as Ent's create sets them; until a client has prototypes, its asks take
// the Ent path.

// askPrototype is a USER message and a PENDING attempt created by one Ent
// client, whose copies carry that client.
type askPrototype struct {
	msg ent.Message
	att ent.Attempt
}

// askPrototypes maps an *ent.Client to its *askPrototype.
var askPrototypes sync.Map

// rememberAskPrototype keeps msg and att (unwrapped from their
// transaction) as the prototypes of e's client, once.
func (e *Engine) rememberAskPrototype(msg *ent.Message, att *ent.Attempt) {
	if _, ok := askPrototypes.Load(e.client); ok {
		return
	}
	p := &askPrototype{msg: *msg, att: *att}
	p.msg.Edges, p.att.Edges = ent.MessageEdges{}, ent.AttemptEdges{}
	askPrototypes.LoadOrStore(e.client, p)
}

// askPrototypeOf returns the prototypes of e's client, or nil.
func (e *Engine) askPrototypeOf() *askPrototype {
	p, _ := askPrototypes.Load(e.client)
	proto, _ := p.(*askPrototype)
	return proto
}

// askStatementRate is the rate part of the ask statement: the arguments of
// pgTake, or nil when the statement charges no rate.
type askStatementRate []any

// statementRate returns the rate part of the ask statement, and false when
// the statement cannot charge the rate and the Ent path must (a limiter on
// another dialect, or a rate that admits nothing, whose refusal Take
// words). charge reports whether the ask is charged in its transaction.
func (e *Engine) statementRate(v *viewer.Viewer, rate Rate, charge bool) (askStatementRate, bool) {
	if !charge {
		return nil, true
	}
	l, ok := e.limiter.(*DBAskLimiter)
	if !ok || !l.postgres {
		return nil, false
	}
	g, ok := gcraOf(rate)
	if !ok {
		return nil, false
	}
	tenantID, userID := splitAskKey(askKey(v))
	return askStatementRate{uuid.Must(uuid.NewV7()), tenantID, userID, g.interval, g.window}, true
}

// errRateRefused reports that the ask statement's rate refused the ask;
// nothing was written.
var errRateRefused = errors.New("ask rate refused")

// insertAskPG writes the ask in tx with one statement and returns the
// message and attempt as Ent would. bump's sequence number is the
// statement's; the message builder's is a placeholder. A conversation
// that is no longer ACTIVE is ent.NotFoundError, a refused rate
// errRateRefused; in both cases nothing was written.
func (e *Engine) insertAskPG(ctx context.Context, tx *ent.Tx, p *askPrototype, rate askStatementRate, b seqBump, mc *ent.MessageCreate, newAtt func(*ent.Message) *ent.AttemptCreate) (*ent.Message, *ent.Attempt, error) {
	mm := mc.Mutation()
	messageDefaults(mm)
	if err := message.Policy.EvalMutation(ctx, mm); err != nil {
		return nil, nil, err
	}
	if err := checkMessage(mm); err != nil {
		return nil, nil, err
	}
	msg := messageFrom(&p.msg, mm)
	am := newAtt(msg).Mutation()
	attemptDefaults(am)
	if err := attempt.Policy.EvalMutation(ctx, am); err != nil {
		return nil, nil, err
	}
	if err := checkAttempt(am); err != nil {
		return nil, nil, err
	}
	att := attemptFrom(&p.att, am)

	msgCols, msgVals := mutationColumns(mm, msg.ID, message.FieldSequenceNo)
	attCols, attVals := mutationColumns(am, att.ID, "")
	var extra []*entsql.Predicate
	if rate != nil {
		extra = append(extra, entsql.ExprP(`EXISTS (SELECT 1 FROM "ask_rate")`))
	}
	q, args, err := askStatement(rate, sequenceUpdate(dialect.Postgres, b, extra...), msgCols, msgVals, attCols, attVals)
	if err != nil {
		return nil, nil, err
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var (
		seq               sql.NullInt64
		created, admitted bool
	)
	if rows.Next() {
		err = rows.Scan(&seq, &created, &admitted)
	}
	if err := errors.Join(err, rows.Err(), rows.Close()); err != nil {
		return nil, nil, err
	}
	switch {
	case !admitted:
		return nil, nil, errRateRefused
	case !seq.Valid:
		return nil, nil, &ent.NotFoundError{}
	case !created:
		return nil, nil, fmt.Errorf("ask: the attempt of message %d was not created", seq.Int64)
	}
	msg.SequenceNo = seq.Int64
	return msg, att, nil
}

// askStatement is the ask's data-modifying WITH (see above): rate (when
// not nil), then bump (an UPDATE whose WHERE requires the rate's row),
// then the message with bump's sequence number, then the attempt. Its one
// row says the message's sequence number (NULL: nothing written), whether
// the attempt was written and whether the rate admitted the ask.
//
//	WITH "ask_rate" AS (INSERT INTO ask_rates … ON CONFLICT … DO UPDATE … WHERE … RETURNING tat),
//	"ask_bump" AS (UPDATE "conversations" SET … WHERE … AND EXISTS (SELECT 1 FROM "ask_rate") RETURNING "last_sequence_no"),
//	"ask_message" AS (INSERT INTO "messages" (…, "sequence_no") SELECT $…, "last_sequence_no" FROM "ask_bump" RETURNING "sequence_no"),
//	"ask_attempt" AS (INSERT INTO "attempts" (…) SELECT $… FROM "ask_message" RETURNING "id")
//	SELECT (SELECT "sequence_no" FROM "ask_message"), EXISTS (SELECT 1 FROM "ask_attempt"), EXISTS (SELECT 1 FROM "ask_rate")
func askStatement(rate askStatementRate, bump *entsql.UpdateBuilder, msgCols []string, msgVals []any, attCols []string, attVals []any) (string, []any, error) {
	var b entsql.Builder
	b.SetDialect(dialect.Postgres)
	b.WriteString("WITH ")
	if rate != nil {
		// pgTake numbers its arguments $1…$5: it comes first.
		b.WriteString(`"ask_rate" AS (`).Join(entsql.Expr(pgTake, rate...)).WriteString("), ")
	}
	b.WriteString(`"ask_bump" AS (`).Join(bump.Returning(conversation.FieldLastSequenceNo)).WriteString("), ")
	b.WriteString(`"ask_message" AS (INSERT INTO `).Ident(message.Table).WriteString(" ").
		Wrap(func(b *entsql.Builder) { b.IdentComma(append(msgCols, message.FieldSequenceNo)...) }).
		WriteString(" SELECT ").Args(msgVals...).Comma().Ident(conversation.FieldLastSequenceNo).
		WriteString(` FROM "ask_bump" RETURNING `).Ident(message.FieldSequenceNo).WriteString("), ")
	b.WriteString(`"ask_attempt" AS (INSERT INTO `).Ident(attempt.Table).WriteString(" ").
		Wrap(func(b *entsql.Builder) { b.IdentComma(attCols...) }).
		WriteString(" SELECT ").Args(attVals...).
		WriteString(` FROM "ask_message" RETURNING `).Ident(attempt.FieldID).WriteString(") ")
	b.WriteString(`SELECT (SELECT "sequence_no" FROM "ask_message"), EXISTS (SELECT 1 FROM "ask_attempt"), `)
	if rate != nil {
		b.WriteString(`EXISTS (SELECT 1 FROM "ask_rate")`)
	} else {
		b.WriteString("TRUE")
	}
	q, args := b.Query()
	return q, args, b.Err()
}

// mutationColumns lists the columns of a create mutation as Ent would
// insert them: the id and every field the builder holds (edge fields
// included), leaving out skip.
func mutationColumns(m ent.Mutation, id any, skip string) ([]string, []any) {
	fields := m.Fields()
	cols, vals := make([]string, 0, len(fields)+1), make([]any, 0, len(fields)+1)
	cols, vals = append(cols, "id"), append(vals, id)
	for _, f := range fields {
		if f == skip {
			continue
		}
		v, _ := m.Field(f)
		cols, vals = append(cols, f), append(vals, v)
	}
	return cols, vals
}

// messageDefaults sets what MessageCreate's defaults would.
func messageDefaults(m *ent.MessageMutation) {
	if _, ok := m.CreatedAt(); !ok {
		m.SetCreatedAt(message.DefaultCreatedAt())
	}
	if _, ok := m.ID(); !ok {
		m.SetID(message.DefaultID())
	}
}

// attemptDefaults sets what AttemptCreate's defaults would.
func attemptDefaults(m *ent.AttemptMutation) {
	if _, ok := m.CreatedAt(); !ok {
		m.SetCreatedAt(attempt.DefaultCreatedAt())
	}
	if _, ok := m.UpdatedAt(); !ok {
		m.SetUpdatedAt(attempt.DefaultUpdatedAt())
	}
	if _, ok := m.Status(); !ok {
		m.SetStatus(attempt.DefaultStatus)
	}
	if _, ok := m.RequiresHistory(); !ok {
		m.SetRequiresHistory(attempt.DefaultRequiresHistory)
	}
	if _, ok := m.Answer(); !ok {
		m.SetAnswer(attempt.DefaultAnswer)
	}
	if _, ok := m.CheckpointSeq(); !ok {
		m.SetCheckpointSeq(attempt.DefaultCheckpointSeq)
	}
	if _, ok := m.Refused(); !ok {
		m.SetRefused(attempt.DefaultRefused)
	}
	if _, ok := m.PromptTokens(); !ok {
		m.SetPromptTokens(attempt.DefaultPromptTokens)
	}
	if _, ok := m.CompletionTokens(); !ok {
		m.SetCompletionTokens(attempt.DefaultCompletionTokens)
	}
	if _, ok := m.TotalTokens(); !ok {
		m.SetTotalTokens(attempt.DefaultTotalTokens)
	}
	if _, ok := m.SummaryVersion(); !ok {
		m.SetSummaryVersion(attempt.DefaultSummaryVersion)
	}
	if _, ok := m.TraceID(); !ok {
		m.SetTraceID(attempt.DefaultTraceID)
	}
	if _, ok := m.ID(); !ok {
		m.SetID(attempt.DefaultID())
	}
}

// checkString runs an Ent validator on an optional string field.
func checkString(name string, v string, set bool, validate func(string) error) error {
	if !set || validate == nil {
		return nil
	}
	if err := validate(v); err != nil {
		return fmt.Errorf("ent: validator failed for field %q: %w", name, err)
	}
	return nil
}

// checkMessage runs Ent's validators of the message's string fields.
func checkMessage(m *ent.MessageMutation) error {
	tenantID, tok := m.TenantID()
	ownerID, ook := m.OwnerID()
	key, kok := m.ClientMessageID()
	trace, tok2 := m.TraceID()
	role, rok := m.Role()
	if !tok || !ook || !rok {
		return errors.New("ent: message without tenant, owner or role")
	}
	return errors.Join(
		checkString(message.FieldTenantID, tenantID, tok, message.TenantIDValidator),
		checkString(message.FieldOwnerID, ownerID, ook, message.OwnerIDValidator),
		checkString(message.FieldClientMessageID, key, kok, message.ClientMessageIDValidator),
		checkString(message.FieldTraceID, trace, tok2, message.TraceIDValidator),
		message.RoleValidator(role),
	)
}

// checkAttempt runs Ent's validators of the attempt's string fields.
func checkAttempt(m *ent.AttemptMutation) error {
	tenantID, tok := m.TenantID()
	ownerID, ook := m.OwnerID()
	key, kok := m.ClientRequestID()
	trace, tok2 := m.TraceID()
	lease, lok := m.LeaseOwner()
	status, sok := m.Status()
	if !tok || !ook || !sok {
		return errors.New("ent: attempt without tenant, owner or status")
	}
	return errors.Join(
		checkString(attempt.FieldTenantID, tenantID, tok, attempt.TenantIDValidator),
		checkString(attempt.FieldOwnerID, ownerID, ook, attempt.OwnerIDValidator),
		checkString(attempt.FieldClientRequestID, key, kok, attempt.ClientRequestIDValidator),
		checkString(attempt.FieldTraceID, trace, tok2, attempt.TraceIDValidator),
		checkString(attempt.FieldLeaseOwner, lease, lok, attempt.LeaseOwnerValidator),
		attempt.StatusValidator(status),
	)
}

// optional is Ent's nillable field: a pointer to v when set.
func optional[T any](v T, set bool) *T {
	if !set {
		return nil
	}
	return &v
}

// messageFrom is a copy of p with every field set from m, as
// MessageCreate sets the message it returns.
func messageFrom(p *ent.Message, m *ent.MessageMutation) *ent.Message {
	n := *p
	n.Edges = ent.MessageEdges{}
	n.ID, _ = m.ID()
	n.TenantID, _ = m.TenantID()
	n.OwnerID, _ = m.OwnerID()
	n.ConversationID, _ = m.ConversationID()
	n.SequenceNo, _ = m.SequenceNo()
	n.Role, _ = m.Role()
	n.Content, _ = m.Content()
	n.StandaloneQuestion = optional(m.StandaloneQuestion())
	n.AttemptID = optional(m.AttemptID())
	n.ClientMessageID = optional(m.ClientMessageID())
	n.Model = optional(m.Model())
	n.PromptTokens = optional(m.PromptTokens())
	n.CompletionTokens = optional(m.CompletionTokens())
	n.TraceID = optional(m.TraceID())
	n.CreatedAt, _ = m.CreatedAt()
	return &n
}

// attemptFrom is a copy of p with every field set from m, as
// AttemptCreate sets the attempt it returns.
func attemptFrom(p *ent.Attempt, m *ent.AttemptMutation) *ent.Attempt {
	n := *p
	n.Edges = ent.AttemptEdges{}
	n.ID, _ = m.ID()
	n.TenantID, _ = m.TenantID()
	n.OwnerID, _ = m.OwnerID()
	n.CreatedAt, _ = m.CreatedAt()
	n.UpdatedAt, _ = m.UpdatedAt()
	n.ConversationID, _ = m.ConversationID()
	n.UserMessageID, _ = m.UserMessageID()
	n.RetryOfID = optional(m.RetryOfID())
	n.ClientRequestID = optional(m.ClientRequestID())
	n.Status, _ = m.Status()
	n.OriginalQuestion, _ = m.OriginalQuestion()
	n.StandaloneQuestion = optional(m.StandaloneQuestion())
	n.RequiresHistory, _ = m.RequiresHistory()
	n.Answer, _ = m.Answer()
	n.CheckpointSeq, _ = m.CheckpointSeq()
	n.CheckpointAt = optional(m.CheckpointAt())
	n.Refused, _ = m.Refused()
	n.RefusalReason = optional(m.RefusalReason())
	n.FailureCode = optional(m.FailureCode())
	n.FailureMessage = optional(m.FailureMessage())
	n.Model = optional(m.Model())
	n.PromptTokens, _ = m.PromptTokens()
	n.CompletionTokens, _ = m.CompletionTokens()
	n.TotalTokens, _ = m.TotalTokens()
	n.ContextManifest, _ = m.ContextManifest()
	n.SummaryVersion, _ = m.SummaryVersion()
	n.TraceID, _ = m.TraceID()
	n.StartedAt, _ = m.StartedAt()
	n.FirstTokenAt = optional(m.FirstTokenAt())
	n.CompletedAt = optional(m.CompletedAt())
	n.LeaseOwner = optional(m.LeaseOwner())
	n.LeaseExpiresAt = optional(m.LeaseExpiresAt())
	return &n
}
