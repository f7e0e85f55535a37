package chat

import (
	"context"

	"entgo.io/ent/dialect"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/convsearch"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/prepared"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tracing"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Ask stores the question and starts answering it in the background
// (docs/ENGINE.md, Ask, step by step; D1, D12): it validates the input against the
// engine's limits, authorises the conversation, honours the idempotency
// key, refuses a second concurrent answer, charges the viewer's ask rate,
// allocates the next sequence number, saves the USER message and creates
// the PENDING attempt, all in one short transaction that begins with the
// one read deciding the ask (docs/ENGINE.md, "Statements per ask"). A
// replayed key, a busy, expired or archived conversation are answered
// from that read, before the rate is charged and without writing. No
// transaction or lock is held while the model streams. in.ParentID asks
// after another message than the current leaf (askParent), in.EditOf
// edits a question (editMessage).
func (e *Engine) Ask(ctx context.Context, in AskInput) (*AskResult, error) {
	spot := askSpot{parent: in.ParentID, attachments: uniqueIDs(in.AttachmentIDs), choice: in.Model}
	if in.EditOf != nil {
		return e.editMessage(ctx, *in.EditOf, spot, in.ClientMessageID, in.Question)
	}
	return e.ask(ctx, in.ConversationID, spot, in.ClientMessageID, in.Question)
}

// askSpot is where an ask puts its question in the conversation's message
// tree (docs/ENGINE.md, "Message trees"). The zero value follows the
// current leaf (Ask).
type askSpot struct {
	// parent is the message the question follows (AskParent), instead of
	// the current leaf.
	parent *uuid.UUID
	// edit is the USER message an edit replaces (EditMessage): the
	// question becomes its sibling, with its parent and depth.
	edit *ent.Message
	// backfilled is set once the conversation, written before message
	// trees, has been made a tree for this ask (backfillTree).
	backfilled bool
	// reaskOf is the stale attempt a reask asks again (Reask): the new
	// attempt links to it.
	reaskOf *uuid.UUID
	// held is the ask's admission slot, once taken (admit.go).
	held *heldSlot
	// attachments are the attachment ids the question names, without
	// repeats (askattachments.go).
	attachments []uuid.UUID
	// choice is the ask's model choice (modelchoice.go).
	choice modelprofile.Level
	// plan is the attempt's model and id, decided in the transaction.
	plan attemptPlan
}

// ask is Ask, AskParent and EditMessage: the question goes where spot
// says, and becomes the conversation's current leaf.
func (e *Engine) ask(ctx context.Context, conversationID uuid.UUID, spot askSpot, clientMessageID, question string) (*AskResult, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	question, err = e.checkQuestion(question)
	if err != nil {
		return nil, err
	}
	if clientMessageID, err = domain.CheckClientID("clientMessageId", clientMessageID); err != nil {
		return nil, err
	}
	if spot.held == nil {
		// Admitted before anything is read or written: a refusal writes
		// nothing, and a queued ask holds no transaction (admit.go).
		slot, err := e.gate.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		spot.held = &heldSlot{slot: slot}
		defer spot.held.release()
	}
	tx, err := e.client.Tx(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	lctx, span := e.startSpan(ctx, spanLoad, tracing.ConversationID.String(conversationID.String()))
	t, err := e.loadAskTarget(lctx, tx.Conversation, conversationID, clientMessageID, spot)
	endSpan(span, err)
	if err != nil {
		if spot.edit != nil && domain.ErrorCode(err) == domain.CodeNotFound {
			// The edited message's conversation is gone: the message is.
			err = domain.NotFound("message")
		}
		return nil, rollback(tx, err)
	}
	conv, raw := t.conv, t.settings
	replay := func() (*AskResult, error) {
		return e.replayAsk(ctx, e.client, conv.ID, spot, clientMessageID, question)
	}
	if t.keyed {
		// The key names an attempt of this conversation: the original ask
		// (a replay, read in the transaction), or a retry (then the key is
		// not this ask's, and inserting the message will say
		// IDEMPOTENCY_MISMATCH or succeed).
		res, err := e.replayAsk(ctx, tx.Client(), conv.ID, spot, clientMessageID, question)
		if res != nil || err != nil {
			_ = tx.Rollback()
			if res != nil {
				res.UserMessage, res.Attempt = res.UserMessage.Unwrap(), res.Attempt.Unwrap()
			}
			return res, err
		}
	}
	if err := e.authoriseAsk(ctx, conv, t); err != nil {
		return nil, rollback(tx, err)
	}
	if err := checkAskAttachments(ctx, tx, conv, spot.attachments); err != nil {
		return nil, rollback(tx, err)
	}
	if legacyTree(conv) && !spot.backfilled {
		// Written before message trees: made a tree first, in a
		// transaction of its own, and the ask starts again on it.
		_ = tx.Rollback()
		if err := e.backfillTree(ctx, conv.ID); err != nil {
			return nil, err
		}
		if spot.edit != nil {
			if spot.edit, err = e.client.Message.Get(ctx, spot.edit.ID); err != nil {
				return nil, store.DomainError(err, "message")
			}
		}
		spot.backfilled = true
		return e.ask(ctx, conversationID, spot, clientMessageID, question)
	}
	st := raw.WithDefaults()
	// Resolved in the ask's transaction: a second connection here, with
	// the pool's all held by asks at this step, would deadlock them.
	if spot.plan.model, err = e.resolveModelIn(ctx, tx.Client(), conv, st, t.profiles, spot.choice); err != nil {
		return nil, rollback(tx, err)
	}
	// The database limiter charges the rate inside the ask's transaction,
	// so an ask that creates nothing costs nothing without a refund; an
	// in-process limiter charges first and refunds (docs/ENGINE.md,
	// "Statements per ask").
	charge := e.chargesInTx()
	if !charge {
		if err := e.chargeAsk(ctx, v, raw); err != nil {
			_ = tx.Rollback()
			// A concurrent twin may have been charged first: its replay is free.
			if res, rerr := replay(); res != nil || rerr != nil {
				return res, rerr
			}
			return nil, err
		}
	}

	cctx, span := e.startSpan(ctx, spanCreate, tracing.ConversationID.String(conv.ID.String()))
	msg, att, err := e.createAsk(cctx, tx, v, conv, t.place, spot, clientMessageID, question, st, raw, charge)
	if err == nil {
		span.SetAttributes(tracing.AttemptID.String(att.ID.String()), tracing.MessageID.String(msg.ID.String()))
	}
	endSpan(span, err)
	if err != nil {
		// Nothing was created, so the ask costs nothing. A concurrent twin
		// may have won the race for the same key or the conversation's one
		// PENDING slot: answer as if it came first.
		if !charge {
			e.refundAsk(ctx, v, raw)
		}
		if res, rerr := replay(); res != nil || rerr != nil {
			return res, rerr
		}
		if code := domain.ErrorCode(err); code == domain.CodeRateLimited || code == domain.CodeQuotaExceeded {
			return nil, err
		}
		if berr := e.checkNotBusy(ctx, conv.ID); berr != nil {
			return nil, berr
		}
		return nil, store.DomainError(err, "conversation")
	}
	e.obs.AskAccepted(false)
	e.feed.MessageCreated(ctx, msg)
	e.feed.AttemptChanged(ctx, att, authz.IsTemporary(conv))
	// An ask that follows the current leaf moves it the way MESSAGE_CREATED
	// tells; an edit or an ask on another branch switches branch.
	if spot.edit != nil || (spot.parent != nil && !sameID(conv.CurrentLeafID, spot.parent)) {
		e.feed.BranchSelected(ctx, conv, msg.ID)
	}
	e.start(runContext(ctx), conv, msg, att, st, spot.held.take())
	return &AskResult{UserMessage: msg, Attempt: att}, nil
}

// authoriseAsk checks that the loaded conversation takes the ask (the
// read itself went through the privacy policies): it is open, the engine
// admits work, and no other answer is running in it.
func (e *Engine) authoriseAsk(ctx context.Context, conv *ent.Conversation, t askTarget) error {
	_, span := e.startSpan(ctx, spanAuthorise, tracing.ConversationID.String(conv.ID.String()))
	err := conversations.CheckOpen(conv, e.now())
	if err == nil {
		err = e.admit()
	}
	if err == nil && t.pending != "" {
		err = busyError(t.pending)
	}
	endSpan(span, err)
	return err
}

// sameID reports whether two optional ids are equal.
func sameID(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// replayAsk answers a repeated idempotency key with the original message
// and its first attempt, in whatever state it is, without a model call. A
// key reused for a different question (its text or its set of
// attachments), or for another kind of request (an
// edit's key for an ask, an ask's or another edit's for an edit, another
// explicit parent) is IDEMPOTENCY_MISMATCH: asks and edits share the
// conversation's keys. It returns nil, nil when the key is new. It reads
// through c (the engine's client or the ask's transaction's).
func (e *Engine) replayAsk(ctx context.Context, c *ent.Client, conversationID uuid.UUID, spot askSpot, clientMessageID, question string) (*AskResult, error) {
	msg, err := store.Optional(c.Message.Query().
		Where(message.ConversationID(conversationID), message.ClientMessageID(clientMessageID)).
		Only(ctx))
	if msg == nil {
		return nil, store.DomainError(err, "message")
	}
	if msg.Content != question {
		return nil, domain.Errorf(domain.CodeIdempotencyMismatch,
			"clientMessageId %q was already used for a different question", clientMessageID)
	}
	if !sameAttachmentSet(msg.AttachmentIds, spot.attachments) {
		return nil, domain.Errorf(domain.CodeIdempotencyMismatch,
			"clientMessageId %q was already used for the question with other attachments", clientMessageID)
	}
	var editOf *uuid.UUID
	if spot.edit != nil {
		editOf = &spot.edit.ID
	}
	if !sameID(msg.EditedFromID, editOf) || (spot.parent != nil && !sameID(msg.ParentID, spot.parent)) {
		return nil, domain.Errorf(domain.CodeIdempotencyMismatch,
			"clientMessageId %q was already used for another request", clientMessageID)
	}
	att, err := c.Attempt.Query().
		Where(attempt.UserMessageID(msg.ID), attempt.ClientRequestID(clientMessageID)).
		Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "attempt")
	}
	return &AskResult{UserMessage: msg, Attempt: att, Deduplicated: true}, nil
}

// busyError is CONVERSATION_BUSY naming the running attempt.
func busyError(pendingID string) error {
	return domain.Errorf(domain.CodeConversationBusy, "another answer is still being generated in this conversation").
		With("attemptId", pendingID)
}

// checkNotBusy returns CONVERSATION_BUSY (with the attempt id) when the
// conversation already has a PENDING attempt: answers are serialised per
// conversation so that history stays in order (docs/ENGINE.md, Ask, step 4).
func (e *Engine) checkNotBusy(ctx context.Context, conversationID uuid.UUID) error {
	pending, err := e.client.Attempt.Query().
		Where(attempt.ConversationID(conversationID), attempt.StatusEQ(attempt.StatusPENDING)).
		First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return store.DomainError(err, "attempt")
	}
	return busyError(pending.ID.String())
}

// treePlace is a new USER message's place in the message tree: its parent
// (nil for a root), its depth, and for an edit the question it edits.
type treePlace struct {
	parent     *uuid.UUID
	depth      int
	editedFrom *uuid.UUID
}

// createAsk writes the ask in tx and ends tx (docs/ENGINE.md, Ask, step
// 6): with charge, it first charges the ask rate; then it bumps the
// conversation's sequence and moves its current leaf to the new message,
// inserts the USER message at place and the PENDING attempt. On PostgreSQL
// that is one statement (insertAskPG), for every ask and edit; on SQLite
// Ent sends one statement per step.
func (e *Engine) createAsk(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, conv *ent.Conversation, place treePlace, spot askSpot, clientMessageID, question string, st, raw domain.TenantSettings, charge bool) (*ent.Message, *ent.Attempt, error) {
	now := e.now()
	expires := conversations.SlidingExpiry(conv, st, now)
	// The message's id is chosen here, so that the bump, which comes
	// first, can make it the current leaf.
	msgID := uuid.Must(uuid.NewV7())
	b := seqBump{id: conv.ID, tenantID: conv.TenantID, userID: conv.UserID, now: now, activeOnly: true, expiresAt: &expires, leaf: &msgID}
	if conv.Title == "" && conv.TitleSource == conversation.TitleSourceQUESTION {
		title := llm.ShortTitle(question)
		b.title = &title
	}
	var (
		msg *ent.Message
		att *ent.Attempt
		err error
	)
	if e.db.Dialect == dialect.Postgres {
		// The search entries of the message and the title go in the
		// ask's statement (insertAskPG).
		ctx, _ = prepared.WithBatch(ctx)
	}
	if b.title != nil {
		// The bump sets the title without Ent's hooks: index it here.
		titled := *conv
		titled.Title = *b.title
		err = convsearch.IndexFirstTitle(ctx, tx.Client(), e.db.Dialect, &titled)
	}
	if err == nil {
		// Under a token quota the answer's tokens are reserved first: a
		// HARD quota's refusal rolls the transaction back, and nothing is
		// written (quota.go).
		spot.plan.id, err = e.reserveAsk(ctx, tx, v, st, spot.plan.model)
	}
	mc := e.userMessage(ctx, tx, conv, clientMessageID, question, spot.attachments).SetID(msgID).
		SetNillableParentID(place.parent).SetDepth(place.depth).SetNillableEditedFromID(place.editedFrom)
	switch {
	case err != nil:
	case e.db.Dialect == dialect.Postgres:
		msg, att, err = e.insertAskPG(ctx, tx, v, raw, charge, conv, b, mc, clientMessageID, spot)
	default:
		msg, att, err = e.insertAskEnt(ctx, tx, v, raw, charge, conv, b, mc, clientMessageID, spot)
	}
	if err != nil {
		return nil, nil, rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, rollback(tx, err)
	}
	return msg.Unwrap(), att.Unwrap(), nil
}

// insertAskEnt writes the ask in tx with Ent, one statement per step: with
// charge, the rate (Take in tx), the sequence (and the leaf), the message
// of mc, the attempt (spot's plan, linked to spot's reaskOf).
func (e *Engine) insertAskEnt(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, raw domain.TenantSettings, charge bool, conv *ent.Conversation, b seqBump, mc *ent.MessageCreate, clientMessageID string, spot askSpot) (*ent.Message, *ent.Attempt, error) {
	if charge {
		if err := e.chargeAsk(ent.NewTxContext(ctx, tx), v, raw); err != nil {
			return nil, nil, err
		}
	}
	seq, err := e.bumpSequence(ctx, tx, b)
	if err != nil {
		return nil, nil, err
	}
	msg, err := mc.SetSequenceNo(seq).Save(ctx)
	if err != nil {
		return nil, nil, err
	}
	att, err := e.newAttempt(ctx, tx, conv, msg, clientMessageID, nil, spot.plan).SetNillableReaskOfID(spot.reaskOf).Save(ctx)
	if err != nil {
		return nil, nil, err
	}
	return msg, att, nil
}

// userMessage builds the ask's USER message naming attachments (its
// sequence number is set by the caller, and replaced by the PostgreSQL
// statement's).
func (e *Engine) userMessage(ctx context.Context, tx *ent.Tx, conv *ent.Conversation, clientMessageID, question string, attachments []uuid.UUID) *ent.MessageCreate {
	mc := tx.Message.Create().
		SetConversationID(conv.ID).SetOwnerID(conv.UserID).
		SetRole(message.RoleUSER).
		SetContent(question).SetClientMessageID(clientMessageID).
		SetTraceID(traceID(ctx))
	if len(attachments) > 0 {
		mc.SetAttachmentIds(attachments)
	}
	return mc
}

// newAttempt builds a PENDING attempt leased to this instance, with
// plan's model and id.
func (e *Engine) newAttempt(ctx context.Context, tx *ent.Tx, conv *ent.Conversation, msg *ent.Message, clientRequestID string, retryOf *uuid.UUID, plan attemptPlan) *ent.AttemptCreate {
	now := e.now()
	c := recordModel(tx.Attempt.Create(), plan.model)
	if plan.id != uuid.Nil {
		c.SetID(plan.id)
	}
	return c.
		SetConversationID(conv.ID).SetOwnerID(conv.UserID).
		SetUserMessageID(msg.ID).SetNillableRetryOfID(retryOf).
		SetClientRequestID(clientRequestID).
		SetOriginalQuestion(msg.Content).
		SetStatus(attempt.StatusPENDING).
		SetStartedAt(now).
		SetTraceID(traceID(ctx)).
		SetLeaseOwner(e.cfg.InstanceID).
		SetLeaseExpiresAt(now.Add(e.cfg.LeaseDuration))
}

// admit refuses new work once Shutdown has begun.
func (e *Engine) admit() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing {
		return domain.Errorf(domain.CodeUnavailable, "the server is shutting down; retry shortly")
	}
	return nil
}
