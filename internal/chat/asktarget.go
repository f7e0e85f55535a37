package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/tenant"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The columns that loadAskTarget adds to the conversation's row: the
// tenant's stored settings, the id of the conversation's PENDING attempt,
// the id of its attempt created with the ask's key, and the depth of the
// message the question follows.
const (
	askTenantSettings = "ask_tenant_settings"
	askPendingID      = "ask_pending_id"
	askKeyedID        = "ask_keyed_id"
	askParentDepth    = "ask_parent_depth"
	askTenantProfiles = "ask_tenant_profiles"
)

// askTarget is what an ask learns from its one read.
type askTarget struct {
	conv *ent.Conversation
	// settings are the tenant's stored settings (zero fields meaning "the
	// default").
	settings domain.TenantSettings
	// keyed reports whether an attempt of the conversation carries the
	// ask's key (a replay, or the key of a retry).
	keyed bool
	// pending is the id of the conversation's PENDING attempt, or "".
	pending string
	// place is the question's place in the message tree: the message it
	// follows (nil: it is a root) and its depth (the parent's plus one).
	place treePlace
	// profiles says whether the tenant has an enabled model profile, so
	// that resolving an ask without a choice reads nothing more in a
	// tenant without profiles.
	profiles modelprofile.TenantProfiles
}

// loadAskTarget reads, in one statement through q (the ask's transaction),
// the conversation the viewer owns, its tenant's stored settings, the two
// attempts that decide the ask: the PENDING one and the one created with
// key (docs/ENGINE.md, "Statements per ask"), whether the tenant has an
// enabled model profile (modelprofile.TenantProfilesColumn), and the depth
// of the message the question follows: spot's parent when it has one (AskParent), else
// the conversation's current leaf; an edit (spot.edit) takes the place of
// the question it edits and reads no parent. The privacy rules still filter the
// conversation (tenant, owner, not DELETED); the settings are its
// tenant's, which is the viewer's; the attempts and the parent are read
// through the same visibility predicates the privacy rules put on attempts
// and messages (authz.VisibleRows), so the read shows nothing the viewer
// could not read with four queries. Unknown, hidden or DELETED is
// NOT_FOUND "conversation"; an explicit parent that is not a USER or
// ASSISTANT message of the conversation is NOT_FOUND "message", whatever
// it is instead (a random id, a message of another conversation, tenant
// or user).
func (e *Engine) loadAskTarget(ctx context.Context, q *ent.ConversationClient, id uuid.UUID, key string, spot askSpot) (askTarget, error) {
	var t askTarget
	v, err := viewer.Require(ctx)
	if err != nil {
		return t, err
	}
	convs, err := q.Query().
		Where(conversation.ID(id), conversation.UserID(v.UserID)).
		Modify(func(s *entsql.Selector) {
			tt := entsql.Table(tenant.Table)
			// COALESCE: a tenant without stored settings has a NULL column,
			// for which SQLite's driver reports no scan type.
			s.Join(tt).On(s.C(conversation.FieldTenantID), tt.C(tenant.FieldID)).
				AppendSelect(entsql.As("COALESCE("+tt.C(tenant.FieldSettings)+", '{}')", askTenantSettings))
			s.AppendSelectExprAs(askAttempt(ctx, s, func(a *entsql.SelectTable) *entsql.Predicate {
				return entsql.EQ(a.C(attempt.FieldStatus), attempt.StatusPENDING.String())
			}), askPendingID)
			s.AppendSelectExprAs(askAttempt(ctx, s, func(a *entsql.SelectTable) *entsql.Predicate {
				return entsql.EQ(a.C(attempt.FieldClientRequestID), key)
			}), askKeyedID)
			if spot.edit == nil {
				s.AppendSelectExprAs(askParent(ctx, s, spot.parent), askParentDepth)
			}
			s.AppendSelectExprAs(modelprofile.TenantProfilesColumn(s, s.C(conversation.FieldTenantID)), askTenantProfiles)
		}).
		All(ctx)
	if err != nil {
		return t, store.DomainError(err, "conversation")
	}
	if len(convs) != 1 || authz.GoneAt(convs[0], e.now()) {
		return t, domain.NotFound("conversation")
	}
	t.conv = convs[0]
	if t.settings, err = storedSettings(t.conv); err != nil {
		return t, err
	}
	if t.pending, err = askAttemptID(t.conv, askPendingID); err != nil {
		return t, err
	}
	keyed, err := askAttemptID(t.conv, askKeyedID)
	if err != nil {
		return t, err
	}
	t.keyed = keyed != ""
	profiles, err := textValue(t.conv, askTenantProfiles)
	if err != nil {
		return t, err
	}
	t.profiles = modelprofile.TenantProfilesOf(string(profiles))
	return t, t.locate(spot)
}

// locate sets the question's place: an edit's is the edited question's
// (its parent and depth); otherwise the parent is spot's or the current
// leaf, whose depth loadAskTarget read. A conversation without a current
// leaf gets a root: its first question (a conversation written before
// message trees has its leaf set by the backfill, internal/chat/treebackfill,
// before it is asked in).
func (t *askTarget) locate(spot askSpot) error {
	if m := spot.edit; m != nil {
		t.place = treePlace{parent: m.ParentID, depth: m.Depth, editedFrom: &m.ID}
		return nil
	}
	parent := spot.parent
	b, err := textValue(t.conv, askParentDepth)
	if err != nil {
		return err
	}
	if parent == nil {
		parent = t.conv.CurrentLeafID
		if parent == nil {
			return nil
		}
		if len(b) == 0 {
			return store.DomainError(fmt.Errorf("current leaf %s of conversation %s not found", parent, t.conv.ID), "conversation")
		}
	} else if len(b) == 0 {
		return domain.NotFound("message")
	}
	d, err := strconv.Atoi(string(b))
	if err != nil {
		return store.DomainError(fmt.Errorf("parent depth: %w", err), "message")
	}
	id := *parent
	t.place = treePlace{parent: &id, depth: d + 1}
	return nil
}

// askParent is the column of loadAskTarget that gives, as text, the depth
// of the message the question follows, or "" when there is none the viewer
// may read: parent, which must be a USER or ASSISTANT message of s's
// conversation, or (parent nil) the conversation's current leaf.
func askParent(ctx context.Context, s *entsql.Selector, parent *uuid.UUID) entsql.Querier {
	b := entsql.Dialect(s.Dialect())
	m := b.Table(message.Table).As("ask_parent")
	preds := []*entsql.Predicate{entsql.ColumnsEQ(m.C(message.FieldConversationID), s.C(conversation.FieldID))}
	if parent != nil {
		preds = append(preds, entsql.EQ(m.C(message.FieldID), *parent),
			entsql.In(m.C(message.FieldRole), message.RoleUSER.String(), message.RoleASSISTANT.String()))
	} else {
		preds = append(preds, entsql.ColumnsEQ(m.C(message.FieldID), s.C(conversation.FieldCurrentLeafID)))
	}
	q := b.SelectExpr(entsql.Expr("CAST(" + m.C(message.FieldDepth) + " AS TEXT)")).From(m).
		Where(entsql.And(preds...)).Limit(1)
	return scalarText(ctx, q, message.Table)
}

// askAttempt is the column of loadAskTarget that names, as text, the id of
// the attempt of s's conversation matching where, or "" (both gate
// predicates match at most one row: a partial unique index and a unique
// key). Text and never NULL, so that both drivers name a type to scan it
// into.
func askAttempt(ctx context.Context, s *entsql.Selector, where func(*entsql.SelectTable) *entsql.Predicate) entsql.Querier {
	b := entsql.Dialect(s.Dialect())
	a := b.Table(attempt.Table).As("ask_attempt")
	q := b.SelectExpr(entsql.Expr("CAST(" + a.C(attempt.FieldID) + " AS TEXT)")).From(a).
		Where(entsql.And(entsql.ColumnsEQ(a.C(attempt.FieldConversationID), s.C(conversation.FieldID)), where(a))).
		Limit(1)
	return scalarText(ctx, q, attempt.Table)
}

// scalarText is the scalar subquery q, one text column of table's rows,
// narrowed to the rows the viewer may see (authz.VisibleRows) and
// COALESCEd to "".
func scalarText(ctx context.Context, q *entsql.Selector, table string) entsql.Querier {
	if visible := authz.VisibleRows(ctx, table); visible != nil {
		visible(q)
	}
	return entsql.ExprFunc(func(b *entsql.Builder) {
		b.WriteString("COALESCE(").Wrap(func(b *entsql.Builder) { b.Join(q) }).WriteString(", '')")
	})
}

// storedSettings decodes the tenant settings column of conv's row.
func storedSettings(conv *ent.Conversation) (domain.TenantSettings, error) {
	var st domain.TenantSettings
	b, err := textValue(conv, askTenantSettings)
	if err != nil || len(b) == 0 {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, store.DomainError(fmt.Errorf("tenant settings: %w", err), "tenant")
	}
	return st, nil
}

// askAttemptID returns the attempt id of column name of conv's row (an
// askAttempt column), or "" when the column names none.
func askAttemptID(conv *ent.Conversation, name string) (string, error) {
	b, err := textValue(conv, name)
	if err != nil || len(b) == 0 {
		return "", err
	}
	id, err := uuid.ParseBytes(b)
	if err != nil {
		if len(b) == 16 { // a UUID stored as its 16 bytes
			id, err = uuid.FromBytes(b)
		}
		if err != nil {
			return "", store.DomainError(fmt.Errorf("attempt id: %w", err), "attempt")
		}
	}
	return id.String(), nil
}

// textValue returns column name of conv's row as bytes (nil for NULL).
func textValue(conv *ent.Conversation, name string) ([]byte, error) {
	raw, err := conv.Value(name)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	switch x := raw.(type) {
	case nil:
		return nil, nil
	case []byte:
		return x, nil
	case string:
		return []byte(x), nil
	default:
		return nil, store.DomainError(fmt.Errorf("column %s of type %T", name, raw), "conversation")
	}
}
