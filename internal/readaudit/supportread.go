package readaudit

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/supportgrant"
)

// supportReads writes one support_read event for each conversation in
// fresh that the support agent agent read, with the grant that opened it:
// the agent's most recently decided APPROVED (or since REVOKED) grant on
// it (internal/support keeps the grants). One lookup and one insert; ctx is
// the request's (for logs), qctx the unaudited, uncancellable context of
// the writes.
func (w writer) supportReads(ctx, qctx context.Context, agent string, fresh []uuid.UUID, known map[uuid.UUID]string) {
	grants, err := w.client.SupportGrant.Query().
		Where(supportgrant.AgentID(agent), supportgrant.ConversationIDIn(fresh...),
			supportgrant.StatusIn(supportgrant.StatusAPPROVED, supportgrant.StatusREVOKED)).
		Order(ent.Asc(supportgrant.FieldDecidedAt)).
		Select(supportgrant.FieldID, supportgrant.FieldConversationID).All(qctx)
	if err != nil {
		w.log.ErrorContext(ctx, "support read audited without its grant: lookup failed", "err", err)
	}
	grantOf := map[uuid.UUID]string{}
	for _, g := range grants {
		grantOf[g.ConversationID] = g.ID.String() // the latest decided wins
	}
	bulk := make([]*ent.AuditEventCreate, len(fresh))
	for i, id := range fresh {
		bulk[i] = w.client.AuditEvent.Create().SetActor(agent).SetAction(ActionSupportRead).
			SetTargetType("Conversation").SetTargetID(id.String()).
			SetMetadata(map[string]string{"owner": known[id], "grant": grantOf[id]})
	}
	if err := w.client.AuditEvent.CreateBulk(bulk...).Exec(qctx); err != nil {
		w.log.ErrorContext(ctx, "support read not audited", "conversations", len(fresh), "err", err)
	}
}
