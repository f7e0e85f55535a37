package organise

import (
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/domain"
)

// Filter narrows a conversation list by organisation. Every set field must
// hold. The predicates run inside the list's own query, under the same
// privacy policies: another user's tag ids simply match nothing.
type Filter struct {
	Pinned   *bool
	FolderID *uuid.UUID
	Unfiled  *bool
	// TagIDs: the conversation has every one of them.
	TagIDs []uuid.UUID
	// Metadata: the conversation's metadata has every one of these pairs.
	Metadata []MetadataEntry
}

// Predicates returns the storage predicates of f.
func (f Filter) Predicates() []predicate.Conversation {
	var ps []predicate.Conversation
	if f.Pinned != nil {
		ps = append(ps, PinnedIs(*f.Pinned))
	}
	if f.FolderID != nil {
		ps = append(ps, conversation.FolderID(*f.FolderID))
	}
	if f.Unfiled != nil {
		ps = append(ps, UnfiledIs(*f.Unfiled))
	}
	ps = append(ps, HasTags(f.TagIDs)...)
	for _, m := range f.Metadata {
		ps = append(ps, MetadataIs(m.Key, m.Value))
	}
	return ps
}

// PinnedIs keeps pinned (true) or unpinned (false) conversations.
func PinnedIs(pinned bool) predicate.Conversation {
	if pinned {
		return conversation.PinnedAtNotNil()
	}
	return conversation.PinnedAtIsNil()
}

// UnfiledIs keeps conversations in no folder (true) or in one (false).
func UnfiledIs(unfiled bool) predicate.Conversation {
	if unfiled {
		return conversation.FolderIDIsNil()
	}
	return conversation.FolderIDNotNil()
}

// HasTags keeps conversations that have every tag of ids: one EXISTS
// probe of conversation_tags per tag.
func HasTags(ids []uuid.UUID) []predicate.Conversation {
	ps := make([]predicate.Conversation, 0, len(ids))
	for _, id := range dedupe(ids) {
		ps = append(ps, conversation.HasConversationTagsWith(conversationtag.TagID(id)))
	}
	return ps
}

// MetadataIs keeps conversations whose metadata maps key to exactly
// value. Key and value are bound parameters on both backends (never
// spliced into a JSON path, as sqljson would): metadata ->> key on
// PostgreSQL, json_each on SQLite.
func MetadataIs(key, value string) predicate.Conversation {
	return func(s *sql.Selector) {
		col := s.C(conversation.FieldMetadata)
		if s.Dialect() == dialect.Postgres {
			s.Where(sql.P(func(b *sql.Builder) {
				b.WriteString("(").WriteString(col).WriteString(" ->> ").Arg(key).WriteString("::text) = ").Arg(value).WriteString("::text")
			}))
			return
		}
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString("EXISTS (SELECT 1 FROM json_each(").WriteString(col).
				WriteString(") AS organise_md WHERE organise_md.key = ").Arg(key).
				WriteString(" AND organise_md.type = 'text' AND organise_md.value = ").Arg(value).WriteString(")")
		}))
	}
}

// Check bounds a filter like the data it matches: at most
// DefaultTagsPerConversation tag ids and MaxMetadataKeys metadata pairs
// (more could never match), so that a filter stays a few index probes.
func (f Filter) Check() error {
	if len(dedupe(f.TagIDs)) > DefaultTagsPerConversation {
		return tooManyTags(DefaultTagsPerConversation)
	}
	if len(f.Metadata) > MaxMetadataKeys {
		return domain.OverLimit(metadataField, LimitMetadataKeys, MaxMetadataKeys,
			"a metadata filter has at most %d pairs", MaxMetadataKeys)
	}
	return nil
}
