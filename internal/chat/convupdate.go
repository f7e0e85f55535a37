package chat

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/store"
)

// UpdateOption qualifies an update of a conversation (rename, archive,
// unarchive, history strategy, delete, restore).
type UpdateOption func(*updateOptions)

type updateOptions struct {
	expected *int
}

// ExpectVersion makes an update apply only while the conversation is at
// version v; at any other version it is CONFLICT with
// extensions.currentVersion (docs/API.md, "Optimistic version checks").
func ExpectVersion(v int) UpdateOption {
	return func(o *updateOptions) { o.expected = &v }
}

// ExpectVersionIf is ExpectVersion(*v), or no condition when v is nil (an
// API argument that was not given).
func ExpectVersionIf(v *int) UpdateOption {
	return func(o *updateOptions) {
		if v != nil {
			o.expected = v
		}
	}
}

// expectedVersion collects the expected version of opts, if any.
func expectedVersion(opts []UpdateOption) *int {
	var o updateOptions
	for _, f := range opts {
		f(&o)
	}
	return o.expected
}

// conversationUpdateRetries bounds how often an update without an expected
// version starts over after a concurrent change of the same conversation
// (an answer being saved bumps the version too).
const conversationUpdateRetries = 5

// convChange decides one update of a conversation from its current row: it
// sets fields on u and returns true, or returns false when the row already
// is what the caller asks for (the update is a no-op), or an error.
type convChange func(conv *ent.Conversation, u *ent.ConversationUpdateOne) (bool, error)

// updateConversation applies change to the conversation load returns, as
// one conditional UPDATE ... WHERE id = ? AND version = ? that also bumps
// the version (docs/API.md, "Optimistic version checks").
//
// With expected set, the update applies only to that version: a row at any
// other version, read before or changed concurrently, is CONFLICT with the
// current version in extensions.currentVersion, and nothing is written.
// Without it, the update applies to the version just read and starts over
// (a few times) when a concurrent change got there first, so that its
// decision is never taken on a stale row. It returns the conversation and
// whether it changed.
func (e *Engine) updateConversation(ctx context.Context, load func(context.Context) (*ent.Conversation, error), expected *int, change convChange) (*ent.Conversation, bool, error) {
	for try := 0; ; try++ {
		conv, err := load(ctx)
		if err != nil {
			return nil, false, err
		}
		if expected != nil && conv.Version != *expected {
			return nil, false, versionConflict(conv.Version, *expected)
		}
		u := e.client.Conversation.UpdateOne(conv).Where(conversation.Version(conv.Version))
		apply, err := change(conv, u)
		if err != nil || !apply {
			return conv, false, err
		}
		updated, err := u.AddVersion(1).Save(ctx)
		switch {
		case err == nil:
			return updated, true, nil
		case !ent.IsNotFound(err):
			return nil, false, store.DomainError(err, "conversation")
		case try >= conversationUpdateRetries:
			if conv, err = load(ctx); err != nil {
				return nil, false, err
			}
			return nil, false, domain.Errorf(domain.CodeConflict, "the conversation keeps changing; try again").
				With("currentVersion", conv.Version)
		}
		// The version moved (or the row left the viewer's view) between
		// the read and the write: read again and decide again; with an
		// expected version, the next read reports the conflict.
	}
}

// versionConflict is the CONFLICT of a stale expectedVersion.
func versionConflict(current, expected int) error {
	return domain.Errorf(domain.CodeConflict,
		"the conversation changed since version %d (it is at version %d); reload it and try again", expected, current).
		With("currentVersion", current).With("expectedVersion", expected)
}

// updateOwnConversation is updateConversation on the viewer's own
// conversation id (ownConversationLoader) at the version opts expect; a
// change is announced on the feed as CONVERSATION_UPDATED and, to the
// owner's devices, as viewerKind.
func (e *Engine) updateOwnConversation(ctx context.Context, id uuid.UUID, opts []UpdateOption, viewerKind feed.ViewerEventKind, change convChange) (*ent.Conversation, error) {
	conv, changed, err := e.updateConversation(ctx, e.ownConversationLoader(id), expectedVersion(opts), change)
	if err != nil || !changed {
		return conv, err
	}
	e.feed.ConversationChanged(ctx, conv, feed.ConversationUpdated, viewerKind)
	return conv, nil
}
