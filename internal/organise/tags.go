package organise

import (
	"context"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/tag"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TagInput creates a tag: a name of 1 to 64 characters after trimming,
// unique among the viewer's tags ignoring case, and an optional hex
// colour.
type TagInput struct {
	Name  string
	Color *string
}

// TagPatch changes a tag: nil fields stay. Color set to nil or ""
// clears the colour.
type TagPatch struct {
	Name     *string
	SetColor bool
	Color    *string
}

// Tags returns the viewer's own tags by name (admins too see only their
// own).
func (s *Service) Tags(ctx context.Context) ([]*ent.Tag, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	tags, err := s.client.Tag.Query().Where(tag.UserID(v.UserID)).
		Order(ent.Asc(tag.FieldName), ent.Asc(tag.FieldID)).All(ctx)
	return tags, store.DomainError(err, "tag")
}

// CreateTag creates a tag of the viewer. A name another of their tags has
// (ignoring case) is BAD_USER_INPUT with extensions.field "name"; a user
// with TagsPerUser tags already is BAD_USER_INPUT with extensions.limit
// "tagsPerUser".
func (s *Service) CreateTag(ctx context.Context, in TagInput) (*ent.Tag, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	name, err := checkTagName(in.Name)
	if err != nil {
		return nil, err
	}
	color, err := checkColor(in.Color)
	if err != nil {
		return nil, err
	}
	names, err := s.tagNames(ctx, v)
	if err != nil {
		return nil, err
	}
	if len(names) >= s.limits.TagsPerUser {
		return nil, domain.OverLimit("input", LimitTagsPerUser, s.limits.TagsPerUser,
			"a user has at most %d tags", s.limits.TagsPerUser)
	}
	if err := uniqueName(names, name, uuid.Nil); err != nil {
		return nil, err
	}
	t, err := s.client.Tag.Create().SetUserID(v.UserID).SetName(name).SetNillableColor(color).Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, duplicateTag(name)
	}
	return t, store.DomainError(err, "tag")
}

// UpdateTag renames or recolours one of the viewer's own tags; another
// user's tag is NOT_FOUND.
func (s *Service) UpdateTag(ctx context.Context, id uuid.UUID, p TagPatch) (*ent.Tag, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	var name string
	if p.Name != nil {
		if name, err = checkTagName(*p.Name); err != nil {
			return nil, err
		}
	}
	color, err := checkColor(p.Color)
	if err != nil {
		return nil, err
	}
	t, err := s.ownTag(ctx, s.client.Tag, v, id)
	if err != nil {
		return nil, err
	}
	u := t.Update()
	changed := false
	if p.Name != nil && name != t.Name {
		names, err := s.tagNames(ctx, v)
		if err != nil {
			return nil, err
		}
		if err := uniqueName(names, name, id); err != nil {
			return nil, err
		}
		u.SetName(name)
		changed = true
	}
	if p.SetColor && !sameColor(color, t.Color) {
		if color == nil {
			u.ClearColor()
		} else {
			u.SetColor(*color)
		}
		changed = true
	}
	if !changed {
		return t, nil
	}
	t, err = u.Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, duplicateTag(name)
	}
	return t, store.DomainError(err, "tag")
}

// DeleteTag deletes one of the viewer's own tags and removes it from every
// conversation that had it, in one transaction that bumps those
// conversations' versions; they are published as updated after the
// commit.
func (s *Service) DeleteTag(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return uuid.Nil, err
	}
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return uuid.Nil, store.DomainError(err, "tag")
	}
	if _, err := s.ownTag(ctx, tx.Tag, v, id); err != nil {
		return uuid.Nil, rollback(tx, err)
	}
	convIDs, err := tx.Conversation.Query().
		Where(conversation.UserID(v.UserID), conversation.HasConversationTagsWith(conversationtag.TagID(id))).
		IDs(ctx)
	if err != nil {
		return uuid.Nil, rollback(tx, store.DomainError(err, "conversation"))
	}
	if len(convIDs) > 0 {
		if err := tx.Conversation.Update().Where(conversation.IDIn(convIDs...)).AddVersion(1).Exec(ctx); err != nil {
			return uuid.Nil, rollback(tx, store.DomainError(err, "conversation"))
		}
	}
	// The tag's rows in DELETED conversations go too.
	if _, err := tx.ConversationTag.Delete().Where(conversationtag.TagID(id)).Exec(authz.IncludeDeleted(ctx)); err != nil {
		return uuid.Nil, rollback(tx, store.DomainError(err, "tag"))
	}
	if err := tx.Tag.DeleteOneID(id).Exec(ctx); err != nil {
		return uuid.Nil, rollback(tx, store.DomainError(err, "tag"))
	}
	if err := tx.Commit(); err != nil {
		return uuid.Nil, store.DomainError(err, "tag")
	}
	s.publish(ctx, convIDs)
	return id, nil
}

// ownTag reads one of the viewer's own tags through c (the client or a
// transaction's); anyone else's is NOT_FOUND like an unknown id.
func (s *Service) ownTag(ctx context.Context, c *ent.TagClient, v *viewer.Viewer, id uuid.UUID) (*ent.Tag, error) {
	t, err := c.Query().Where(tag.ID(id), tag.UserID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "tag")
	}
	return t, nil
}

// tagNames returns the names of the viewer's tags by id.
func (s *Service) tagNames(ctx context.Context, v *viewer.Viewer) (map[uuid.UUID]string, error) {
	tags, err := s.client.Tag.Query().Where(tag.UserID(v.UserID)).Select(tag.FieldName).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "tag")
	}
	out := make(map[uuid.UUID]string, len(tags))
	for _, t := range tags {
		out[t.ID] = t.Name
	}
	return out, nil
}

// uniqueName refuses name when a tag other than self has it, ignoring
// case.
func uniqueName(names map[uuid.UUID]string, name string, self uuid.UUID) error {
	for id, n := range names {
		if id != self && strings.EqualFold(n, name) {
			return duplicateTag(name)
		}
	}
	return nil
}

// duplicateTag is the BAD_USER_INPUT of a name in use.
func duplicateTag(name string) error {
	return domain.BadInput(tagNameRuleField, "you already have a tag named %q", name)
}

// sameColor reports whether two optional colours are equal.
func sameColor(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// publish reads the conversations ids as they are now and publishes them
// as updated. A failed read only loses the notification.
func (s *Service) publish(ctx context.Context, ids []uuid.UUID) {
	if len(ids) == 0 {
		return
	}
	convs, err := s.client.Conversation.Query().Where(conversation.IDIn(ids...)).All(ctx)
	if err != nil {
		return
	}
	s.notify.ConversationsUpdated(ctx, convs...)
}

// sortTags orders tags by name, then id.
func sortTags(tags []*ent.Tag) {
	sort.Slice(tags, func(i, j int) bool {
		if tags[i].Name != tags[j].Name {
			return tags[i].Name < tags[j].Name
		}
		return tags[i].ID.String() < tags[j].ID.String()
	})
}
