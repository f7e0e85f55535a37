package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/organise"
)

// Organising conversations (docs/API.md, "Organising conversations"): the
// resolvers parse, call internal/organise and map. The organisation fields
// of a Conversation (pinned, pinnedAt, folderId, folder, tags, metadata)
// show only to its owner and the tenant's admins (organise.Visible); a
// support agent reading through a grant sees pinned false, null and [].

// Organise is the part of internal/organise (*organise.Service) the API
// uses.
type Organise interface {
	Pin(ctx context.Context, id uuid.UUID, expected *int) (*ent.Conversation, error)
	Unpin(ctx context.Context, id uuid.UUID, expected *int) (*ent.Conversation, error)
	Tags(ctx context.Context) ([]*ent.Tag, error)
	CreateTag(ctx context.Context, in organise.TagInput) (*ent.Tag, error)
	UpdateTag(ctx context.Context, id uuid.UUID, p organise.TagPatch) (*ent.Tag, error)
	DeleteTag(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	SetTags(ctx context.Context, convID uuid.UUID, ids []uuid.UUID, expected *int) (*ent.Conversation, error)
	AddTags(ctx context.Context, convID uuid.UUID, ids []uuid.UUID) (*ent.Conversation, error)
	RemoveTags(ctx context.Context, convID uuid.UUID, ids []uuid.UUID) (*ent.Conversation, error)
	Folders(ctx context.Context) ([]*ent.Folder, error)
	CreateFolder(ctx context.Context, in organise.FolderInput) (*ent.Folder, error)
	UpdateFolder(ctx context.Context, id uuid.UUID, p organise.FolderPatch) (*ent.Folder, error)
	DeleteFolder(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	MoveConversation(ctx context.Context, convID uuid.UUID, folderID *uuid.UUID, expected *int) (*ent.Conversation, error)
	UpdateMetadata(ctx context.Context, id uuid.UUID, changes []organise.MetadataChange, expected *int) (*ent.Conversation, error)
	PrepareNew(ctx context.Context, changes []organise.MetadataChange, folderID *uuid.UUID) (organise.NewConversation, error)
}

var _ Organise = (*organise.Service)(nil)

// organiser returns the organise service, or UNAVAILABLE when none is
// wired.
func (r *Resolver) organiser() (Organise, error) {
	if r.organise == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "organising conversations is not available")
	}
	return r.organise, nil
}

// metadataChanges is the engine's form of MetadataEntryInput values.
func metadataChanges(in []*model.MetadataEntryInput) []organise.MetadataChange {
	return convertNonNil(in, func(e *model.MetadataEntryInput) organise.MetadataChange {
		return organise.MetadataChange{Key: e.Key, Value: e.Value}
	})
}

// metadataFilter is the engine's form of MetadataFilterInput values.
func metadataFilter(in []*model.MetadataFilterInput) []organise.MetadataEntry {
	return convertNonNil(in, func(e *model.MetadataFilterInput) organise.MetadataEntry {
		return organise.MetadataEntry{Key: e.Key, Value: e.Value}
	})
}

// newConversationOrganisation checks createConversation's metadata and
// folderId; without either it needs no organise service.
func (r *Resolver) newConversationOrganisation(ctx context.Context, in model.CreateConversationInput) (organise.NewConversation, error) {
	if len(in.Metadata) == 0 && in.FolderID == nil {
		return organise.NewConversation{}, nil
	}
	o, err := r.organiser()
	if err != nil {
		return organise.NewConversation{}, err
	}
	return o.PrepareNew(ctx, metadataChanges(in.Metadata), in.FolderID)
}

// organiseFilter is the organisation part of AdminConversationWhereInput.
func organiseFilter(w *model.AdminConversationWhereInput) organise.Filter {
	if w == nil {
		return organise.Filter{}
	}
	return organise.Filter{
		Pinned: w.Pinned, FolderID: w.FolderID, Unfiled: w.Unfiled,
		TagIDs: w.TagIds, Metadata: metadataFilter(w.Metadata),
	}
}

// whereOrganise adds f's predicates to a generated where-input (the input
// field resolvers of ConversationWhereInput's pinned, unfiled, tagIds and
// metadata; its folderId is generated).
func whereOrganise(w *ent.ConversationWhereInput, f organise.Filter) error {
	if err := f.Check(); err != nil {
		return err
	}
	w.AddPredicates(f.Predicates()...)
	return nil
}

// fieldAlias is the alias of the field being resolved (the name field
// collection loads named edges under).
func fieldAlias(ctx context.Context) string {
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Field.Field != nil {
		return fc.Field.Alias
	}
	return ""
}
