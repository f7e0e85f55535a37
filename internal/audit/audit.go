// Package audit writes audit events as the viewer: the one rule for who
// the actor of an event is, and for what happens when an event cannot be
// written.
package audit

import (
	"context"
	"log/slog"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/viewer"
)

// An Event is what an audit event records besides its actor and time.
type Event struct {
	Action     string
	TargetType string
	TargetID   string
	Reason     string
	Metadata   map[string]string
}

// Actor is the user id of the viewer in ctx, "system" without one.
func Actor(ctx context.Context) string {
	if v := viewer.FromContext(ctx); v != nil {
		return v.UserID
	}
	return "system"
}

// Write appends e as the viewer in ctx (Actor) through c, a client's or a
// transaction's AuditEvent.
func Write(ctx context.Context, c *ent.AuditEventClient, e Event) error {
	return c.Create().SetActor(Actor(ctx)).SetAction(e.Action).
		SetTargetType(e.TargetType).SetTargetID(e.TargetID).SetReason(e.Reason).SetMetadata(e.Metadata).
		Exec(ctx)
}

// Log is Write for an action that has already happened: failing to audit
// is logged on log, never hidden.
func Log(ctx context.Context, c *ent.AuditEventClient, log *slog.Logger, e Event) {
	if err := Write(ctx, c, e); err != nil {
		log.ErrorContext(ctx, "audit event not written", "action", e.Action, "target", e.TargetID, "err", err)
	}
}
