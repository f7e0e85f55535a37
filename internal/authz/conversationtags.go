package authz

import (
	"context"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/tag"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DenyConversationTagOutsideViewer refuses to create a conversation_tags
// row unless both its tag and its live conversation are the viewer's own
// (docs/API.md, "Organising conversations"): nobody, an admin included,
// puts a tag on another user's conversation or another user's tag on
// their own. It reads both rows through the mutation's client, so inside
// a transaction it sees the transaction's rows, under the viewer's
// policies. Updates and deletes keep the owner scope (FilterScope).
func DenyConversationTagOutsideViewer() privacy.MutationRule {
	return privacy.ConversationTagMutationRuleFunc(func(ctx context.Context, m *ent.ConversationTagMutation) error {
		if !m.Op().Is(ent.OpCreate) {
			return privacy.Skip
		}
		if _, ok := viewer.SystemJob(ctx); ok {
			return privacy.Skip
		}
		v := viewer.FromContext(ctx)
		convID, okConv := m.ConversationID()
		tagID, okTag := m.TagID()
		if v == nil || !okConv || !okTag {
			return privacy.Denyf("conversation tag: viewer, conversation or tag missing")
		}
		ownTag, err := m.Client().Tag.Query().Where(tag.ID(tagID), tag.UserID(v.UserID)).Exist(ctx)
		if err != nil {
			return privacy.Denyf("conversation tag: %v", err)
		}
		ownConv, err := m.Client().Conversation.Query().
			Where(conversation.ID(convID), conversation.UserID(v.UserID)).Exist(ctx)
		if err != nil {
			return privacy.Denyf("conversation tag: %v", err)
		}
		if !ownTag || !ownConv {
			return privacy.Denyf("conversation tag: the tag and the conversation must be the viewer's own")
		}
		return privacy.Skip
	})
}
