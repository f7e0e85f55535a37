package support

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/viewer"
)

// auditGrant writes the audit event of a lifecycle step of g as the
// viewer. Failing to audit is logged, never hidden; the step it describes
// has already happened.
func (s *Service) auditGrant(ctx context.Context, action string, g *ent.SupportGrant, reason string) {
	actor := "system"
	if v := viewer.FromContext(ctx); v != nil {
		actor = v.UserID
	}
	err := s.client.AuditEvent.Create().SetActor(actor).SetAction(action).
		SetTargetType("SupportGrant").SetTargetID(g.ID.String()).SetReason(reason).
		SetMetadata(map[string]string{
			"conversation": g.ConversationID.String(),
			"agent":        g.AgentID,
			"owner":        g.ConversationOwnerID,
			"expiresAt":    g.ExpiresAt.UTC().Format(time.RFC3339),
		}).
		Exec(ctx)
	if err != nil {
		s.log.ErrorContext(ctx, "audit event not written", "action", action, "target", g.ID.String(), "err", err)
	}
}
