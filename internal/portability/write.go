package portability

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// importConv is one conversation Service.write writes: its
// id, title (trimmed and within MaxTitleBytes; "" leaves it to the title
// generator), creation time (zero: now), history strategy and its
// messages, every parent before its children, in the order they were
// written. LeafID names the current leaf among them (nil: the last).
type importConv struct {
	ID              uuid.UUID
	Title           string
	CreatedAt       time.Time
	HistoryStrategy *domain.HistoryStrategy
	Messages        []importMsg
	LeafID          *uuid.UUID
}

// importMsg is one message of an importConv. A USER message
// is a root (ParentID nil) or follows a USER or ASSISTANT message; an
// ASSISTANT message follows a USER message, its question, and gets a
// COMPLETED attempt with Model, the token counts and CompletedAt, no
// sources and a manifest that says it was imported. EditedFromID, when
// set, names an earlier message of the conversation.
type importMsg struct {
	ID               uuid.UUID
	ParentID         *uuid.UUID
	EditedFromID     *uuid.UUID
	Role             message.Role
	Content          string
	CreatedAt        time.Time
	Model            *string
	PromptTokens     int
	CompletionTokens int
	CompletedAt      *time.Time
}

// importConvs writes convs as new conversations of the viewer in
// knowledge base kbID (nil: the tenant's oldest; one the viewer cannot
// see is NOT_FOUND), all in one transaction: all of them or none. Each
// keeps its tree: depths follow the parents, sequence numbers are 1…n in
// the order given, last_sequence_no is n and the current leaf is LeafID.
// The caller validates the input (the parsers); a message that breaks the
// rules above is an INTERNAL error, and nothing is written.
// The owner's feed gets CONVERSATION_CREATED for each.
func (s *Service) write(ctx context.Context, kbID *uuid.UUID, convs []importConv) ([]*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	kb, err := conversations.KnowledgeBase(ctx, s.client, kbID)
	if err != nil {
		return nil, err
	}
	st, err := tenantsettings.Effective(ctx, s.client)
	if err != nil {
		return nil, err
	}
	if s.beforeWrite != nil {
		s.beforeWrite(ctx)
	}
	out := make([]*ent.Conversation, 0, len(convs))
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		for i := range convs {
			conv, err := s.writeOne(ctx, tx, v, st, kb, &convs[i])
			if err != nil {
				return err
			}
			out = append(out, conv)
		}
		return nil
	})
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	for i, conv := range out {
		out[i] = conv.Unwrap()
		s.notify.ConversationChanged(ctx, out[i], feed.ConversationUpdated, feed.ViewerConversationCreated)
	}
	return out, nil
}

// writeOne writes one imported conversation in tx.
func (s *Service) writeOne(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, st domain.TenantSettings, kb uuid.UUID, in *importConv) (*ent.Conversation, error) {
	type placed struct {
		depth int
		role  message.Role
		text  string
		at    time.Time
	}
	seen := make(map[uuid.UUID]placed, len(in.Messages))
	var rows conversations.TreeRows
	for i, m := range in.Messages {
		depth := 0
		var parent placed
		if m.ParentID != nil {
			p, ok := seen[*m.ParentID]
			if !ok {
				return nil, fmt.Errorf("import: message %d follows %s, which does not come before it", i, m.ParentID)
			}
			parent, depth = p, p.depth+1
		}
		if m.Role != message.RoleUSER && m.Role != message.RoleASSISTANT {
			return nil, fmt.Errorf("import: message %d has role %s", i, m.Role)
		}
		if m.Role == message.RoleASSISTANT && (m.ParentID == nil || parent.role != message.RoleUSER) {
			return nil, fmt.Errorf("import: answer %d does not follow a question", i)
		}
		if m.EditedFromID != nil {
			if _, ok := seen[*m.EditedFromID]; !ok {
				return nil, fmt.Errorf("import: message %d is edited from %s, which does not come before it", i, m.EditedFromID)
			}
		}
		at := m.CreatedAt
		if at.IsZero() {
			at = s.now()
		}
		seen[m.ID] = placed{depth: depth, role: m.Role, text: m.Content, at: at}
		c := tx.Message.Create().
			SetID(m.ID).
			SetConversationID(in.ID).SetOwnerID(v.UserID).
			SetNillableParentID(m.ParentID).
			SetNillableEditedFromID(m.EditedFromID).
			SetDepth(depth).
			SetSequenceNo(int64(i + 1)).
			SetRole(m.Role).
			SetContent(m.Content).
			SetNillableModel(m.Model).
			SetCreatedAt(at)
		if m.Role == message.RoleUSER {
			rows.Add(c, nil)
			continue
		}
		attID := uuid.New()
		c.SetAttemptID(attID).SetPromptTokens(m.PromptTokens).SetCompletionTokens(m.CompletionTokens)
		done := at
		if m.CompletedAt != nil {
			done = *m.CompletedAt
		}
		rows.Add(c, tx.Attempt.Create().
			SetID(attID).
			SetConversationID(in.ID).SetOwnerID(v.UserID).
			SetUserMessageID(*m.ParentID).
			SetStatus(attempt.StatusCOMPLETED).
			SetOriginalQuestion(parent.text).
			SetAnswer(m.Content).
			SetNillableModel(m.Model).
			SetPromptTokens(m.PromptTokens).
			SetCompletionTokens(m.CompletionTokens).
			SetTotalTokens(m.PromptTokens+m.CompletionTokens).
			SetContextManifest(&domain.ContextManifest{Imported: true, ChunkIDs: []string{}}).
			SetStartedAt(at).
			SetCompletedAt(done).
			SetCreatedAt(at))
	}
	cc := conversations.Create(tx.Conversation, v, st, s.now()).
		SetID(in.ID).
		SetKnowledgeBaseID(kb).
		SetNillableHistoryStrategy(in.HistoryStrategy).
		SetLastSequenceNo(int64(len(in.Messages)))
	if in.Title != "" {
		cc.SetTitle(in.Title).SetTitleSource(conversation.TitleSourceUSER)
	}
	if !in.CreatedAt.IsZero() {
		cc.SetCreatedAt(in.CreatedAt)
	}
	switch {
	case in.LeafID != nil:
		if _, ok := seen[*in.LeafID]; !ok {
			return nil, fmt.Errorf("import: current leaf %s is not one of the messages", in.LeafID)
		}
		cc.SetCurrentLeafID(*in.LeafID)
	case len(in.Messages) > 0:
		cc.SetCurrentLeafID(in.Messages[len(in.Messages)-1].ID)
	}
	conv, err := cc.Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := rows.Write(ctx, tx); err != nil {
		return nil, err
	}
	return conv, nil
}
