package chat

import (
	"context"

	"github.com/ragchat/ragchat/ent"
)

// ConversationsUpdated publishes CONVERSATION_UPDATED for each of convs on
// its stream and its owner's feed, on every replica: the notifier of
// changes made outside the engine (internal/organise: pins, tags, folders,
// metadata). Publishing never blocks on subscribers.
func (e *Engine) ConversationsUpdated(ctx context.Context, convs ...*ent.Conversation) {
	for _, c := range convs {
		e.conversationChanged(ctx, c, ConversationUpdated, ViewerConversationUpdated)
	}
}
