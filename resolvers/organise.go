package resolvers

import (
	"context"
	"time"

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

// conversationPinned is Conversation.pinned.
func conversationPinned(ctx context.Context, c *ent.Conversation) bool {
	return organise.Visible(ctx, c) && c.PinnedAt != nil
}

// conversationPinnedAt is Conversation.pinnedAt.
func conversationPinnedAt(ctx context.Context, c *ent.Conversation) *time.Time {
	if !organise.Visible(ctx, c) {
		return nil
	}
	return c.PinnedAt
}

// conversationFolderID is Conversation.folderId.
func conversationFolderID(ctx context.Context, c *ent.Conversation) *uuid.UUID {
	if !organise.Visible(ctx, c) {
		return nil
	}
	return c.FolderID
}

// conversationFolder is Conversation.folder, from field collection when it
// loaded it.
func conversationFolder(ctx context.Context, c *ent.Conversation) (*ent.Folder, error) {
	f, err := c.Edges.FolderOrErr()
	return organise.ConversationFolder(ctx, c, f, err == nil)
}

// conversationTags is Conversation.tags, from field collection when it
// loaded them.
func conversationTags(ctx context.Context, c *ent.Conversation) ([]*ent.Tag, error) {
	loaded, err := c.NamedTags(fieldAlias(ctx))
	return organise.ConversationTags(ctx, c, loaded, err == nil)
}

// conversationMetadata is Conversation.metadata.
func conversationMetadata(ctx context.Context, c *ent.Conversation) []*model.MetadataEntry {
	entries := organise.Metadata(ctx, c)
	out := make([]*model.MetadataEntry, len(entries))
	for i, e := range entries {
		out[i] = &model.MetadataEntry{Key: e.Key, Value: e.Value}
	}
	return out
}

// metadataChanges is the engine's form of MetadataEntryInput values.
func metadataChanges(in []*model.MetadataEntryInput) []organise.MetadataChange {
	out := make([]organise.MetadataChange, 0, len(in))
	for _, e := range in {
		if e != nil {
			out = append(out, organise.MetadataChange{Key: e.Key, Value: e.Value})
		}
	}
	return out
}

// metadataFilter is the engine's form of MetadataFilterInput values.
func metadataFilter(in []*model.MetadataFilterInput) []organise.MetadataEntry {
	out := make([]organise.MetadataEntry, 0, len(in))
	for _, e := range in {
		if e != nil {
			out = append(out, organise.MetadataEntry{Key: e.Key, Value: e.Value})
		}
	}
	return out
}

// pin is pinConversation (pin true) and unpinConversation.
func (r *Resolver) pin(ctx context.Context, id uuid.UUID, expected *int, pin bool) (*ent.Conversation, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	if pin {
		return o.Pin(ctx, id, expected)
	}
	return o.Unpin(ctx, id, expected)
}

// tags is Query.tags.
func (r *Resolver) tags(ctx context.Context) ([]*ent.Tag, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	return o.Tags(ctx)
}

// folders is Query.folders.
func (r *Resolver) folders(ctx context.Context) ([]*ent.Folder, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	return o.Folders(ctx)
}

// createTag is Mutation.createTag.
func (r *Resolver) createTag(ctx context.Context, in model.CreateTagInput) (*ent.Tag, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	return o.CreateTag(ctx, organise.TagInput{Name: in.Name, Color: in.Color})
}

// updateTag is Mutation.updateTag.
func (r *Resolver) updateTag(ctx context.Context, id uuid.UUID, in model.UpdateTagInput) (*ent.Tag, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	p := organise.TagPatch{}
	if name, ok := in.Name.ValueOK(); ok && name != nil {
		p.Name = name
	}
	if color, ok := in.Color.ValueOK(); ok {
		p.SetColor, p.Color = true, color
	}
	return o.UpdateTag(ctx, id, p)
}

// deleteTag is Mutation.deleteTag.
func (r *Resolver) deleteTag(ctx context.Context, id uuid.UUID) (*model.DeleteTagPayload, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	deleted, err := o.DeleteTag(ctx, id)
	if err != nil {
		return nil, err
	}
	return &model.DeleteTagPayload{DeletedTagID: deleted}, nil
}

// conversationTagsChange is setConversationTags (set), addConversationTags
// and removeConversationTags.
func (r *Resolver) conversationTagsChange(ctx context.Context, convID uuid.UUID, ids []uuid.UUID, expected *int, op string) (*ent.Conversation, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	switch op {
	case "set":
		return o.SetTags(ctx, convID, ids, expected)
	case "add":
		return o.AddTags(ctx, convID, ids)
	default:
		return o.RemoveTags(ctx, convID, ids)
	}
}

// createFolder is Mutation.createFolder.
func (r *Resolver) createFolder(ctx context.Context, in model.CreateFolderInput) (*ent.Folder, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	return o.CreateFolder(ctx, organise.FolderInput{Name: in.Name, ParentID: in.ParentID, Position: in.Position})
}

// updateFolder is Mutation.updateFolder.
func (r *Resolver) updateFolder(ctx context.Context, id uuid.UUID, in model.UpdateFolderInput) (*ent.Folder, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	p := organise.FolderPatch{}
	if name, ok := in.Name.ValueOK(); ok && name != nil {
		p.Name = name
	}
	if parent, ok := in.ParentID.ValueOK(); ok {
		p.SetParent, p.ParentID = true, parent
	}
	if pos, ok := in.Position.ValueOK(); ok && pos != nil {
		p.Position = pos
	}
	return o.UpdateFolder(ctx, id, p)
}

// deleteFolder is Mutation.deleteFolder.
func (r *Resolver) deleteFolder(ctx context.Context, id uuid.UUID) (*model.DeleteFolderPayload, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	deleted, err := o.DeleteFolder(ctx, id)
	if err != nil {
		return nil, err
	}
	return &model.DeleteFolderPayload{DeletedFolderID: deleted}, nil
}

// moveConversationToFolder is Mutation.moveConversationToFolder.
func (r *Resolver) moveConversationToFolder(ctx context.Context, convID uuid.UUID, folderID *uuid.UUID, expected *int) (*ent.Conversation, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	return o.MoveConversation(ctx, convID, folderID, expected)
}

// updateConversationMetadata is Mutation.updateConversationMetadata.
func (r *Resolver) updateConversationMetadata(ctx context.Context, id uuid.UUID, md []*model.MetadataEntryInput, expected *int) (*ent.Conversation, error) {
	o, err := r.organiser()
	if err != nil {
		return nil, err
	}
	return o.UpdateMetadata(ctx, id, metadataChanges(md), expected)
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

// organiseFilterOf is the filter of one organisation field of
// ConversationWhereInput.
func organiseFilterOf(pinned, unfiled *bool, tagIDs []uuid.UUID, md []*model.MetadataFilterInput) organise.Filter {
	return organise.Filter{Pinned: pinned, Unfiled: unfiled, TagIDs: tagIDs, Metadata: metadataFilter(md)}
}
