package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Ask stores the question and starts answering it in the background
// (docs/ENGINE.md, Ask, step by step; D1, D12): it validates the input against the
// engine's limits, authorises the conversation, honours the idempotency
// key, refuses a second concurrent answer, charges the viewer's ask rate,
// and in one short transaction allocates the next sequence number, saves
// the USER message and creates the PENDING attempt. A replayed key is
// answered before the rate is charged, so it never costs rate. No
// transaction or lock is held while the model streams.
func (e *Engine) Ask(ctx context.Context, conversationID uuid.UUID, clientMessageID, question string) (*AskResult, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	question, err = e.checkQuestion(question)
	if err != nil {
		return nil, err
	}
	if clientMessageID, err = checkClientID("clientMessageId", clientMessageID); err != nil {
		return nil, err
	}
	conv, raw, err := e.loadAskTarget(ctx, conversationID)
	if err != nil {
		return nil, err
	}
	replay := func() (*AskResult, error) { return e.replayAsk(ctx, conv.ID, clientMessageID, question) }
	// One read answers both "is this key a replay?" and "is an answer
	// running?" (docs/ENGINE.md, "Statements per ask").
	keyed, pending, err := e.askGate(ctx, conv.ID, clientMessageID)
	if err != nil {
		return nil, err
	}
	if keyed {
		// The key names an attempt of this conversation: the original ask
		// (a replay), or a retry (then the key is not this ask's, and
		// inserting the message will say IDEMPOTENCY_MISMATCH or succeed).
		if res, err := replay(); res != nil || err != nil {
			return res, err
		}
	}
	if err := e.checkOpen(conv); err != nil {
		return nil, err
	}
	if err := e.admit(); err != nil {
		return nil, err
	}
	if pending != nil {
		return nil, busyError(pending)
	}
	st := raw.WithDefaults()
	// The database limiter charges the rate inside the ask's transaction,
	// so an ask that creates nothing costs nothing without a refund; an
	// in-process limiter charges first and refunds (docs/ENGINE.md,
	// "Statements per ask").
	var charge func(context.Context) error
	if e.chargesInTx() {
		charge = func(ctx context.Context) error { return e.chargeAsk(ctx, v, raw) }
	} else if err := e.chargeAsk(ctx, v, raw); err != nil {
		// A concurrent twin may have been charged first: its replay is free.
		if res, rerr := replay(); res != nil || rerr != nil {
			return res, rerr
		}
		return nil, err
	}

	msg, att, err := e.createAsk(ctx, conv, clientMessageID, question, st, charge)
	if err != nil {
		// Nothing was created, so the ask costs nothing. A concurrent twin
		// may have won the race for the same key or the conversation's one
		// PENDING slot: answer as if it came first.
		if charge == nil {
			e.refundAsk(ctx, v, raw)
		}
		if res, rerr := replay(); res != nil || rerr != nil {
			return res, rerr
		}
		if domain.ErrorCode(err) == domain.CodeRateLimited {
			return nil, err
		}
		if berr := e.checkNotBusy(ctx, conv.ID); berr != nil {
			return nil, berr
		}
		return nil, storageError(err, "conversation")
	}
	e.obs.AskAccepted(false)
	e.messageCreated(ctx, msg)
	e.attemptChanged(ctx, att)
	e.start(runContext(ctx), conv, msg, att, st)
	return &AskResult{UserMessage: msg, Attempt: att}, nil
}

// replayAsk answers a repeated idempotency key with the original message
// and its first attempt, in whatever state it is, without a model call. A
// key reused for a different question is IDEMPOTENCY_MISMATCH. It returns
// nil, nil when the key is new.
func (e *Engine) replayAsk(ctx context.Context, conversationID uuid.UUID, clientMessageID, question string) (*AskResult, error) {
	msg, err := e.client.Message.Query().
		Where(message.ConversationID(conversationID), message.ClientMessageID(clientMessageID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, storageError(err, "message")
	}
	if msg.Content != question {
		return nil, domain.Errorf(domain.CodeIdempotencyMismatch,
			"clientMessageId %q was already used for a different question", clientMessageID)
	}
	att, err := e.client.Attempt.Query().
		Where(attempt.UserMessageID(msg.ID), attempt.ClientRequestID(clientMessageID)).
		Only(ctx)
	if err != nil {
		return nil, storageError(err, "attempt")
	}
	return &AskResult{UserMessage: msg, Attempt: att, Deduplicated: true}, nil
}

// askGate reads, in one statement, the attempts of a conversation that
// matter to a new ask: the one created with key (keyed reports whether
// there is one) and the PENDING one (nil if none).
func (e *Engine) askGate(ctx context.Context, conversationID uuid.UUID, key string) (keyed bool, pending *ent.Attempt, err error) {
	atts, err := e.client.Attempt.Query().
		Where(attempt.ConversationID(conversationID),
			attempt.Or(attempt.StatusEQ(attempt.StatusPENDING), attempt.ClientRequestID(key))).
		Limit(2).
		All(ctx)
	if err != nil {
		return false, nil, storageError(err, "attempt")
	}
	for _, a := range atts {
		if a.ClientRequestID != nil && *a.ClientRequestID == key {
			keyed = true
		}
		if a.Status == attempt.StatusPENDING {
			pending = a
		}
	}
	return keyed, pending, nil
}

// busyError is CONVERSATION_BUSY naming the running attempt.
func busyError(pending *ent.Attempt) error {
	return domain.Errorf(domain.CodeConversationBusy, "another answer is still being generated in this conversation").
		With("attemptId", pending.ID.String())
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
		return storageError(err, "attempt")
	}
	return busyError(pending)
}

// createAsk is the ask's one short transaction. charge, when not nil,
// charges the ask rate first, inside the transaction.
func (e *Engine) createAsk(ctx context.Context, conv *ent.Conversation, clientMessageID, question string, st domain.TenantSettings, charge func(context.Context) error) (*ent.Message, *ent.Attempt, error) {
	tx, err := e.client.Tx(ctx)
	if err != nil {
		return nil, nil, err
	}
	if charge != nil {
		if err := charge(ent.NewTxContext(ctx, tx)); err != nil {
			return nil, nil, rollback(tx, err)
		}
	}
	now := e.now()
	expires := minTime(now.Add(st.ConversationIdleTTL.Duration), conv.AbsoluteExpiresAt)
	b := seqBump{id: conv.ID, tenantID: conv.TenantID, userID: conv.UserID, now: now, activeOnly: true, expiresAt: &expires}
	if conv.Title == "" && conv.TitleSource == conversation.TitleSourceQUESTION {
		title := llm.ShortTitle(question)
		b.title = &title
	}
	seq, err := e.bumpSequence(ctx, tx, b)
	if err != nil {
		return nil, nil, rollback(tx, err)
	}
	msg, err := tx.Message.Create().
		SetConversationID(conv.ID).SetOwnerID(conv.UserID).
		SetSequenceNo(seq).SetRole(message.RoleUSER).
		SetContent(question).SetClientMessageID(clientMessageID).
		SetTraceID(traceID(ctx)).
		Save(ctx)
	if err != nil {
		return nil, nil, rollback(tx, err)
	}
	att, err := e.newAttempt(ctx, tx, conv, msg, clientMessageID, nil).Save(ctx)
	if err != nil {
		return nil, nil, rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, err
	}
	return msg.Unwrap(), att.Unwrap(), nil
}

// newAttempt builds a PENDING attempt leased to this instance.
func (e *Engine) newAttempt(ctx context.Context, tx *ent.Tx, conv *ent.Conversation, msg *ent.Message, clientRequestID string, retryOf *uuid.UUID) *ent.AttemptCreate {
	now := e.now()
	return tx.Attempt.Create().
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
