package resolvers

import (
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/feed"
)

// changedAttempts is the changedAttemptIds and changedAttemptCount of a
// SOURCES_CHANGED event (docs/API.md, "Document-change events"); both are
// null for other kinds.
func changedAttempts(sourcesChanged bool, ids []uuid.UUID, count int) ([]uuid.UUID, *int) {
	if !sourcesChanged {
		return nil, nil
	}
	if ids == nil {
		ids = []uuid.UUID{}
	}
	return ids, &count
}

// conversationSourcesChanged reports whether ev is a SOURCES_CHANGED.
func conversationSourcesChanged(ev feed.ConversationEvent) bool {
	return ev.Kind == feed.ConversationSourcesChanged
}

// viewerSourcesChanged reports whether ev is a SOURCES_CHANGED.
func viewerSourcesChanged(ev feed.ViewerEvent) bool {
	return ev.Kind == feed.ViewerSourcesChanged
}
