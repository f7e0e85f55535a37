package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
)

// Reask asks a stale attempt's question again (docs/API.md, "Stale
// answers"): its standalone question (the original one when it was never
// rewritten) becomes a new USER message on the conversation's current
// branch, answered by a new attempt whose reask_of names the stale one. It
// is an Ask in all but its text and that link: the same checks, busy rule,
// rate and events. clientRequestID is the new question's idempotency key
// (shared with asks); a repeat returns the first reask with Deduplicated,
// and a key used by another request is IDEMPOTENCY_MISMATCH. Empty
// clientRequestID means a fresh key, no idempotency. Only the owner may
// reask: another user's or tenant's attempt, one of a deleted
// conversation, or a random id is NOT_FOUND "attempt".
func (e *Engine) Reask(ctx context.Context, in RetryInput) (*AskResult, error) {
	attemptID, clientRequestID := in.AttemptID, in.ClientRequestID
	if clientRequestID == "" {
		clientRequestID = uuid.Must(uuid.NewV7()).String()
	}
	key, err := domain.CheckClientID("clientRequestId", clientRequestID)
	if err != nil {
		return nil, err
	}
	old, conv, err := conversations.LoadOwnAttempt(ctx, e.client, attemptID, e.now())
	if err != nil {
		return nil, err
	}
	question := old.OriginalQuestion
	if old.StandaloneQuestion != nil && *old.StandaloneQuestion != "" {
		question = *old.StandaloneQuestion
	}
	res, err := e.ask(ctx, conv.ID, askSpot{reaskOf: &old.ID, choice: in.Model}, key, question)
	if err != nil {
		return nil, err
	}
	if res.Deduplicated && (res.Attempt.ReaskOfID == nil || *res.Attempt.ReaskOfID != old.ID) {
		return nil, domain.Errorf(domain.CodeIdempotencyMismatch,
			"clientRequestId %q was already used for another request", key)
	}
	return res, nil
}
