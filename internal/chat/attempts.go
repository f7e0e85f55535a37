package chat

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Retry starts a new attempt at the same user message, at any depth of the
// conversation's tree: its answer will be a sibling of the earlier answers
// to that question (docs/ENGINE.md, "Message trees"). The new attempt
// points at the one it retries (retry_of); the old one is left untouched,
// so both can be compared and rated (docs/ENGINE.md D4). The question
// becomes the current leaf (and its new answer, on completion, while the
// question still is), which BRANCH_SELECTED tells the owner's devices. The
// busy rule is Ask's: one answer in flight per conversation, whichever
// branch. clientRequestID makes the retry idempotent like an ask, and a
// replayed key costs no rate.
func (e *Engine) Retry(ctx context.Context, in RetryInput) (*AskResult, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	attemptID := in.AttemptID
	clientRequestID, err := domain.CheckClientID("clientRequestId", in.ClientRequestID)
	if err != nil {
		return nil, err
	}
	old, conv, err := conversations.LoadOwnAttempt(ctx, e.client, attemptID, e.now())
	if err != nil {
		return nil, err
	}
	if res, err := e.replayRetry(ctx, conv.ID, old.ID, clientRequestID); res != nil || err != nil {
		return res, err
	}
	if old.Status == attempt.StatusPENDING {
		return nil, domain.Errorf(domain.CodeConversationBusy, "the attempt is still being generated").
			With("attemptId", old.ID.String())
	}
	if err := conversations.CheckOpen(conv, e.now()); err != nil {
		return nil, err
	}
	if err := e.admit(); err != nil {
		return nil, err
	}
	slot, err := e.gate.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	held := &heldSlot{slot: slot}
	defer held.release()
	if err := e.checkNotBusy(ctx, conv.ID); err != nil {
		return nil, err
	}
	if legacyTree(conv) {
		// Written before message trees: made a tree before the retry
		// moves its leaf.
		if err := e.backfillTree(ctx, conv.ID); err != nil {
			return nil, err
		}
	}
	raw, err := tenantsettings.Stored(ctx, e.client)
	if err != nil {
		return nil, err
	}
	st := raw.WithDefaults()
	resolved, err := e.resolveModel(ctx, conv, st, in.Model)
	if err != nil {
		return nil, err
	}
	msg, err := e.client.Message.Get(ctx, old.UserMessageID)
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	// The rate is charged as an ask's is (ask.go): in the retry's
	// transaction when the limiter takes part in it, else first and given
	// back when nothing was created.
	charge := e.chargesInTx()
	if !charge {
		if err := e.chargeAsk(ctx, v, raw); err != nil {
			if res, rerr := e.replayRetry(ctx, conv.ID, old.ID, clientRequestID); res != nil || rerr != nil {
				return res, rerr
			}
			return nil, err
		}
	}
	att, err := e.createRetry(ctx, v, conv, msg, retryWrite{retryOf: old.ID, key: clientRequestID, st: st, raw: raw, model: resolved, charge: charge})
	if err != nil {
		if !charge {
			e.refundAsk(ctx, v, raw)
		}
		if code := domain.ErrorCode(err); code == domain.CodeQuotaExceeded || code == domain.CodeRateLimited {
			if res, rerr := e.replayRetry(ctx, conv.ID, old.ID, clientRequestID); res != nil || rerr != nil {
				return res, rerr
			}
			return nil, err
		}
		if res, rerr := e.replayRetry(ctx, conv.ID, old.ID, clientRequestID); res != nil || rerr != nil {
			return res, rerr
		}
		if berr := e.checkNotBusy(ctx, conv.ID); berr != nil {
			return nil, berr
		}
		return nil, store.DomainError(err, "attempt")
	}
	e.obs.AskAccepted(true)
	e.feed.AttemptChanged(ctx, att, authz.IsTemporary(conv))
	e.feed.BranchSelected(ctx, conv, msg.ID)
	e.start(runContext(ctx), conv, msg, att, st, held.take())
	return &AskResult{UserMessage: msg, Attempt: att}, nil
}

// replayRetry answers a repeated retry key with the attempt it created.
func (e *Engine) replayRetry(ctx context.Context, conversationID, retryOf uuid.UUID, key string) (*AskResult, error) {
	att, err := store.Optional(e.client.Attempt.Query().
		Where(attempt.ConversationID(conversationID), attempt.ClientRequestID(key)).
		Only(ctx))
	if att == nil {
		return nil, store.DomainError(err, "attempt")
	}
	if att.RetryOfID == nil || *att.RetryOfID != retryOf {
		return nil, domain.Errorf(domain.CodeIdempotencyMismatch, "clientRequestId %q was already used for another request", key)
	}
	msg, err := e.client.Message.Get(ctx, att.UserMessageID)
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	return &AskResult{UserMessage: msg, Attempt: att, Deduplicated: true}, nil
}

// retryWrite is what a retry's transaction writes: a new attempt at the
// question of retryOf under key, with the tenant's settings (st with
// defaults, raw as stored), the resolved model, and whether the rate is
// charged in the transaction.
type retryWrite struct {
	retryOf uuid.UUID
	key     string
	st, raw domain.TenantSettings
	model   *modelprofile.Resolved
	charge  bool
}

// createRetry is the retry's short transaction, in the steps of an ask's
// (createAsk): under a token quota, reserve the answer's tokens first
// (reserveAsk: a HARD quota's refusal rolls back and writes nothing); with
// w.charge, charge the ask rate (RATE_LIMITED rolls back); then touch the
// conversation (lock order as in Ask), making the retried question its
// current leaf, and create the PENDING attempt the reservation names.
func (e *Engine) createRetry(ctx context.Context, v *viewer.Viewer, conv *ent.Conversation, msg *ent.Message, w retryWrite) (*ent.Attempt, error) {
	tx, err := e.client.Tx(ctx)
	if err != nil {
		return nil, err
	}
	now := e.now()
	st := w.st
	plan := attemptPlan{model: w.model}
	plan.id, err = e.reserveAsk(ctx, tx, v, st, w.model)
	if err != nil {
		return nil, rollback(tx, err)
	}
	if w.charge {
		if err := e.chargeAsk(ent.NewTxContext(ctx, tx), v, w.raw); err != nil {
			return nil, rollback(tx, err)
		}
	}
	if _, err := tx.Conversation.UpdateOneID(conv.ID).
		Where(conversation.StatusEQ(conversation.StatusACTIVE)).AddVersion(1).
		SetCurrentLeafID(msg.ID).
		SetExpiresAt(conversations.SlidingExpiry(conv, st, now)).
		Save(ctx); err != nil {
		return nil, rollback(tx, err)
	}
	att, err := e.newAttempt(ctx, tx, conv, msg, w.key, &w.retryOf, plan).Save(ctx)
	if err != nil {
		return nil, rollback(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return att.Unwrap(), nil
}

// Cancel stops a PENDING attempt (docs/ENGINE.md, "Cancel"). A run on this
// instance is cancelled, which closes the upstream model stream, and
// records FAILED(CANCELLED). For a run on another instance, the owner
// (the lease holder) is asked through the broker to cancel it at once,
// and the attempt is marked FAILED(CANCELLED) here too: the database
// decides, and if the request is lost the owner stops at its next
// checkpoint. An attempt whose run is gone is marked directly. Cancelling
// a finished attempt changes nothing and returns it.
func (e *Engine) Cancel(ctx context.Context, attemptID uuid.UUID) (*ent.Attempt, error) {
	att, _, err := conversations.LoadOwnAttempt(ctx, e.client, attemptID, e.now())
	if err != nil {
		return nil, err
	}
	if att.Status != attempt.StatusPENDING {
		return att, nil
	}
	if r, ok := e.running(att.ID); ok {
		r.cancel(errCancelledByUser)
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, store.DomainError(ctx.Err(), "attempt")
		case <-time.After(10 * time.Second):
		}
	} else {
		e.requestCancel(ctx, att.LeaseOwner, att.ID, reasonUser)
		e.markFailed(ctx, att.ID, domain.FailureCancelled, errCancelledByUser.Error(), att.Answer, att.CheckpointSeq, time.Time{}, false)
	}
	att, err = e.client.Attempt.Get(ctx, att.ID)
	return att, store.DomainError(err, "attempt")
}
