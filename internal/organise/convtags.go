package organise

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/tag"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// tagSetChange computes a conversation's new tag set from its current one.
type tagSetChange func(current map[uuid.UUID]bool) map[uuid.UUID]bool

// SetTags replaces the tags of the viewer's own conversation with ids
// (duplicates ignored). Every id must be one of the viewer's own tags
// (NOT_FOUND otherwise); more than TagsPerConversation is BAD_USER_INPUT
// with extensions.field "tagIds" and extensions.limit.
func (s *Service) SetTags(ctx context.Context, convID uuid.UUID, ids []uuid.UUID, expected *int) (*ent.Conversation, error) {
	want := dedupe(ids)
	return s.changeTags(ctx, convID, want, expected, func(map[uuid.UUID]bool) map[uuid.UUID]bool {
		return setOf(want)
	})
}

// AddTags adds tags to the viewer's own conversation, like SetTags with
// the union.
func (s *Service) AddTags(ctx context.Context, convID uuid.UUID, ids []uuid.UUID) (*ent.Conversation, error) {
	add := dedupe(ids)
	return s.changeTags(ctx, convID, add, nil, func(cur map[uuid.UUID]bool) map[uuid.UUID]bool {
		for _, id := range add {
			cur[id] = true
		}
		return cur
	})
}

// RemoveTags removes tags from the viewer's own conversation; a tag of the
// viewer's the conversation does not have is ignored, another user's tag
// is NOT_FOUND.
func (s *Service) RemoveTags(ctx context.Context, convID uuid.UUID, ids []uuid.UUID) (*ent.Conversation, error) {
	remove := dedupe(ids)
	return s.changeTags(ctx, convID, remove, nil, func(cur map[uuid.UUID]bool) map[uuid.UUID]bool {
		for _, id := range remove {
			delete(cur, id)
		}
		return cur
	})
}

// changeTags checks that named are the viewer's own tags and applies
// change to the conversation's tag set, writing only the difference.
func (s *Service) changeTags(ctx context.Context, convID uuid.UUID, named []uuid.UUID, expected *int, change tagSetChange) (*ent.Conversation, error) {
	if max := s.limits.TagsPerConversation; len(named) > max {
		return nil, tooManyTags(max)
	}
	return s.changeConversation(ctx, convID, expected, func(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, conv *ent.Conversation) (bool, error) {
		if len(named) > 0 {
			n, err := tx.Tag.Query().Where(tag.IDIn(named...), tag.UserID(v.UserID)).Count(ctx)
			if err != nil {
				return false, store.DomainError(err, "tag")
			}
			if n != len(named) {
				return false, domain.NotFound("tag")
			}
		}
		rows, err := tx.ConversationTag.Query().Where(conversationtag.ConversationID(conv.ID)).All(ctx)
		if err != nil {
			return false, store.DomainError(err, "tag")
		}
		cur := make(map[uuid.UUID]bool, len(rows))
		for _, r := range rows {
			cur[r.TagID] = true
		}
		was := make(map[uuid.UUID]bool, len(cur))
		for id := range cur {
			was[id] = true
		}
		next := change(cur)
		if len(next) > s.limits.TagsPerConversation {
			return false, tooManyTags(s.limits.TagsPerConversation)
		}
		var gone []uuid.UUID
		for id := range was {
			if !next[id] {
				gone = append(gone, id)
			}
		}
		var added []*ent.ConversationTagCreate
		for id := range next {
			if !was[id] {
				added = append(added, tx.ConversationTag.Create().
					SetConversationID(conv.ID).SetTagID(id).SetOwnerID(conv.UserID))
			}
		}
		if len(gone) == 0 && len(added) == 0 {
			return false, nil
		}
		if len(gone) > 0 {
			if _, err := tx.ConversationTag.Delete().
				Where(conversationtag.ConversationID(conv.ID), conversationtag.TagIDIn(gone...)).Exec(ctx); err != nil {
				return false, store.DomainError(err, "tag")
			}
		}
		if len(added) > 0 {
			if err := tx.ConversationTag.CreateBulk(added...).Exec(ctx); err != nil {
				return false, store.DomainError(err, "tag")
			}
		}
		return true, nil
	})
}

// tooManyTags is the BAD_USER_INPUT of a conversation over its tag limit.
func tooManyTags(max int) error {
	return domain.OverLimit(tagIDsField, LimitTagsPerConversation, max,
		"a conversation has at most %d tags", max)
}

// dedupe returns ids without repeats, in their first order.
func dedupe(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]bool, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// setOf returns ids as a set.
func setOf(ids []uuid.UUID) map[uuid.UUID]bool {
	out := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// ConversationTags returns conv's tags by name, or none when the viewer in
// ctx does not see its organisation (Visible). loaded are the tags field
// collection read already, if any.
func ConversationTags(ctx context.Context, conv *ent.Conversation, loaded []*ent.Tag, isLoaded bool) ([]*ent.Tag, error) {
	if !Visible(ctx, conv) {
		return []*ent.Tag{}, nil
	}
	if !isLoaded {
		var err error
		loaded, err = conv.QueryTags().Order(ent.Asc(tag.FieldName), ent.Asc(tag.FieldID)).All(ctx)
		if err != nil {
			return nil, store.DomainError(err, "tag")
		}
	}
	out := append([]*ent.Tag{}, loaded...)
	sortTags(out)
	return out, nil
}
