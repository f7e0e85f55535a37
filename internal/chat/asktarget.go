package chat

import (
	"context"
	"encoding/json"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/tenant"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// askTenantSettings names the tenant settings column that loadAskTarget
// adds to the conversation's row.
const askTenantSettings = "ask_tenant_settings"

// loadAskTarget is loadOwnConversation and tenantSettings in one
// statement: the conversation the viewer owns, joined with its tenant's
// stored settings (zero fields meaning "the default"). The privacy rules
// still filter the conversation; its tenant is the viewer's, so the join
// reads nothing the viewer could not (docs/ENGINE.md, "Statements per
// ask").
func (e *Engine) loadAskTarget(ctx context.Context, id uuid.UUID) (*ent.Conversation, domain.TenantSettings, error) {
	var st domain.TenantSettings
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, st, err
	}
	convs, err := e.client.Conversation.Query().
		Where(conversation.ID(id), conversation.UserID(v.UserID)).
		Modify(func(s *entsql.Selector) {
			t := entsql.Table(tenant.Table)
			// COALESCE: a tenant without stored settings has a NULL column,
			// for which SQLite's driver reports no scan type.
			s.Join(t).On(s.C(conversation.FieldTenantID), t.C(tenant.FieldID)).
				AppendSelect(entsql.As("COALESCE("+t.C(tenant.FieldSettings)+", '{}')", askTenantSettings))
		}).
		All(ctx)
	if err != nil {
		return nil, st, storageError(err, "conversation")
	}
	if len(convs) != 1 {
		return nil, st, domain.NotFound("conversation")
	}
	conv := convs[0]
	if conv.Status == conversation.StatusDELETED {
		return nil, st, domain.NotFound("conversation")
	}
	raw, err := conv.Value(askTenantSettings)
	if err != nil {
		return nil, st, storageError(err, "tenant")
	}
	var b []byte
	switch x := raw.(type) {
	case nil:
	case []byte:
		b = x
	case string:
		b = []byte(x)
	default:
		return nil, st, storageError(fmt.Errorf("tenant settings of type %T", raw), "tenant")
	}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &st); err != nil {
			return nil, st, storageError(fmt.Errorf("tenant settings: %w", err), "tenant")
		}
	}
	return conv, st, nil
}
