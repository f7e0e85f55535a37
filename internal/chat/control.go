package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/broker"
)

// Control requests between instances (docs/ENGINE.md, "Cancel"). Every
// engine subscribes to its own instance topic when it is created and
// follows it until Shutdown (or until the broker closes), so that an
// instance that does not run an attempt can stop it on the instance that
// does, at once: cancelling the run closes its upstream model request. The
// database stays the source of truth: the requester also writes the
// outcome, and a request the broker loses is caught by the owner at its
// next checkpoint (the conditional lease renewal fails).

// instanceTopic is the broker topic of one instance's control requests.
// The id is hashed, like a user's in internal/feed's viewerTopic, so that
// the topic is made of safe characters for any broker whatever
// RAGCHAT_INSTANCE_ID contains.
func instanceTopic(instanceID string) string {
	sum := sha256.Sum256([]byte(instanceID))
	return "instance:" + hex.EncodeToString(sum[:16])
}

// controlCancel is the event kind of a cancel request.
const controlCancel = "CANCEL"

// Why a cancel request was sent (controlPayload.Reason).
const (
	reasonUser    = "user"    // cancelAttempt
	reasonDeleted = "deleted" // the conversation was deleted
)

// controlPayload is the JSON body of a control request.
type controlPayload struct {
	Attempt uuid.UUID `json:"a"`
	Reason  string    `json:"r"`
}

// control is the engine's follower of its instance topic.
type control struct {
	stop context.CancelFunc
	done chan struct{}
}

// startControl subscribes to the instance topic before New returns (so a
// request sent right after is not missed) and follows it in the
// background.
func (e *Engine) startControl() {
	ctx, stop := context.WithCancel(context.Background())
	e.control = control{stop: stop, done: make(chan struct{})}
	sub, err := e.broker.Subscribe(ctx, instanceTopic(e.cfg.InstanceID))
	if err != nil {
		e.log.Warn("control topic not subscribed yet; retrying", "instance", e.cfg.InstanceID, "err", err)
		sub = nil
	}
	go e.followControl(ctx, sub)
}

// stopControl ends the follower and waits for it. It is idempotent.
func (e *Engine) stopControl() {
	e.control.stop()
	<-e.control.done
}

// followControl handles the instance topic's requests until ctx ends or
// the broker closes, resubscribing when the subscription lags or the topic
// expires (a request missed meanwhile is caught by the checkpoint).
func (e *Engine) followControl(ctx context.Context, sub *broker.Subscription) {
	defer close(e.control.done)
	broker.Follow(ctx, e.broker, instanceTopic(e.cfg.InstanceID), sub, e.handleControl)
}

// handleControl applies one request. A cancel of an attempt this instance
// does not run (finished, or a request replayed from the backlog) does
// nothing.
func (e *Engine) handleControl(ev broker.Event) {
	if ev.Kind != controlCancel {
		return
	}
	var p controlPayload
	if err := json.Unmarshal(ev.Data, &p); err != nil {
		return
	}
	r, ok := e.running(p.Attempt)
	if !ok {
		return
	}
	if p.Reason == reasonDeleted {
		r.cancel(errDeleted)
	} else {
		r.cancel(errCancelledByUser)
	}
}

// requestCancel asks the instance that holds an attempt's lease to cancel
// its run. A broker failure is only logged: the caller writes the outcome
// to the database, which the owner notices at its next checkpoint.
func (e *Engine) requestCancel(ctx context.Context, owner *string, id uuid.UUID, reason string) {
	if owner == nil || *owner == e.cfg.InstanceID {
		return // nobody, or this instance, whose runs are cancelled directly
	}
	data, err := json.Marshal(controlPayload{Attempt: id, Reason: reason})
	if err != nil {
		return
	}
	_, err = e.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: instanceTopic(*owner), Kind: controlCancel, Data: data})
	if err != nil {
		e.log.WarnContext(ctx, "cancel request not published; the owner stops at its next checkpoint", "attempt", id, "owner", *owner, "err", err)
	}
}
