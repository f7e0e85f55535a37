package conversations

import (
	"context"
	"log/slog"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Audit appends an audit event as the viewer in ctx ("system" without
// one). Failing to audit is logged on log, never hidden: the action it
// describes has already happened.
func Audit(ctx context.Context, client *ent.Client, log *slog.Logger, action, targetType, targetID, reason string, meta map[string]string) {
	actor := "system"
	if v := viewer.FromContext(ctx); v != nil {
		actor = v.UserID
	}
	err := client.AuditEvent.Create().SetActor(actor).SetAction(action).
		SetTargetType(targetType).SetTargetID(targetID).SetReason(reason).SetMetadata(meta).
		Exec(ctx)
	if err != nil {
		log.ErrorContext(ctx, "audit event not written", "action", action, "target", targetID, "err", err)
	}
}
