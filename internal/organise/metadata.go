package organise

import (
	"context"
	"sort"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// MetadataEntry is one key-value pair of a conversation's metadata.
type MetadataEntry struct {
	Key, Value string
}

// Metadata returns conv's metadata by key, or none when the viewer in ctx
// does not see its organisation (Visible).
func Metadata(ctx context.Context, conv *ent.Conversation) []MetadataEntry {
	if !Visible(ctx, conv) {
		return []MetadataEntry{}
	}
	out := make([]MetadataEntry, 0, len(conv.Metadata))
	for k, v := range conv.Metadata {
		out = append(out, MetadataEntry{Key: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// UpdateMetadata merges changes into the viewer's own conversation id's
// metadata: a value sets its key, nil deletes it. Bad keys or values, a
// key given twice, or a result of more than 16 keys are BAD_USER_INPUT
// with extensions.field "metadata" and extensions.limit, and nothing is
// written; a merge that changes nothing is a no-op.
func (s *Service) UpdateMetadata(ctx context.Context, id uuid.UUID, changes []MetadataChange, expected *int) (*ent.Conversation, error) {
	if err := checkMetadataChanges(changes); err != nil {
		return nil, err
	}
	return s.changeConversation(ctx, id, expected, func(ctx context.Context, tx *ent.Tx, _ *viewer.Viewer, conv *ent.Conversation) (bool, error) {
		merged, err := mergeMetadata(conv.Metadata, changes)
		if err != nil {
			return false, err
		}
		if equalMetadata(merged, conv.Metadata) {
			return false, nil
		}
		return true, store.DomainError(tx.Conversation.UpdateOne(conv).SetMetadata(merged).Exec(ctx), "conversation")
	})
}

// NewConversation is the organisation a new conversation starts with
// (createConversation's metadata and folderId), checked.
type NewConversation struct {
	Metadata map[string]string
	FolderID *uuid.UUID
}

// PrepareNew checks the organisation of a conversation the viewer is about
// to create: the metadata as UpdateMetadata does (nil values are ignored)
// and the folder, which must be one of the viewer's own (NOT_FOUND
// otherwise). Nothing is written.
func (s *Service) PrepareNew(ctx context.Context, changes []MetadataChange, folderID *uuid.UUID) (NewConversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return NewConversation{}, err
	}
	set := make([]MetadataChange, 0, len(changes))
	for _, c := range changes {
		if c.Value != nil {
			set = append(set, c)
		}
	}
	if err := checkMetadataChanges(set); err != nil {
		return NewConversation{}, err
	}
	md, err := mergeMetadata(nil, set)
	if err != nil {
		return NewConversation{}, err
	}
	if folderID != nil {
		if _, err := s.ownFolder(ctx, s.client.Folder, v, *folderID); err != nil {
			return NewConversation{}, err
		}
	}
	if len(md) == 0 {
		md = nil
	}
	return NewConversation{Metadata: md, FolderID: folderID}, nil
}
