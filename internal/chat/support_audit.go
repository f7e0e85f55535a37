package chat

import (
	"context"
	"log/slog"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/supportgrant"
)

// ActionSupportRead is the audit action of a support agent reading a
// conversation under a support grant: one event per conversation per
// GraphQL operation (readaudit.go), naming the grant.
const ActionSupportRead = "conversation.support_read"

// writeSupportReads writes one support_read event for each conversation
// in fresh that the support agent agent read, with the grant that opened
// it: the agent's most recently decided APPROVED (or since REVOKED) grant
// on it. One lookup and one insert; ctx is the request's (for logs), qctx
// the unaudited, uncancellable context of the writes.
func writeSupportReads(ctx, qctx context.Context, c *ent.Client, log *slog.Logger, agent string, fresh []uuid.UUID, known map[uuid.UUID]string) {
	grants, err := c.SupportGrant.Query().
		Where(supportgrant.AgentID(agent), supportgrant.ConversationIDIn(fresh...),
			supportgrant.StatusIn(supportgrant.StatusAPPROVED, supportgrant.StatusREVOKED)).
		Order(ent.Asc(supportgrant.FieldDecidedAt)).
		Select(supportgrant.FieldID, supportgrant.FieldConversationID).All(qctx)
	if err != nil {
		log.ErrorContext(ctx, "support read audited without its grant: lookup failed", "err", err)
	}
	grantOf := map[uuid.UUID]string{}
	for _, g := range grants {
		grantOf[g.ConversationID] = g.ID.String() // the latest decided wins
	}
	bulk := make([]*ent.AuditEventCreate, len(fresh))
	for i, id := range fresh {
		bulk[i] = c.AuditEvent.Create().SetActor(agent).SetAction(ActionSupportRead).
			SetTargetType("Conversation").SetTargetID(id.String()).
			SetMetadata(map[string]string{"owner": known[id], "grant": grantOf[id]})
	}
	if err := c.AuditEvent.CreateBulk(bulk...).Exec(qctx); err != nil {
		log.ErrorContext(ctx, "support read not audited", "conversations", len(fresh), "err", err)
	}
}
