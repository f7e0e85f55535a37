package portability

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// ownConversation loads conversation id for export: only the viewer's own
// (an admin's or a support agent's reach over others' conversations does
// not extend to exports). Foreign, unknown, DELETED and expired temporary
// conversations are the same NOT_FOUND; a live temporary one is
// BAD_USER_INPUT on "id".
func (s *Service) ownConversation(ctx context.Context, v *viewer.Viewer, id uuid.UUID) (*ent.Conversation, error) {
	conv, err := s.client.Conversation.Query().
		Where(conversation.ID(id), conversation.UserID(v.UserID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, domain.NotFound("conversation")
	}
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if authz.GoneAt(conv, s.now()) {
		return nil, domain.NotFound("conversation")
	}
	if authz.IsTemporary(conv) {
		return nil, domain.BadInput("id", "a temporary conversation is never exported (keep it first with keepConversation)")
	}
	return conv, nil
}

// meta is conv's metadata as exported.
func (s *Service) meta(conv *ent.Conversation) Conversation {
	c := Conversation{
		ID:              conv.ID.String(),
		Title:           conv.Title,
		CreatedAt:       conv.CreatedAt.UTC(),
		UpdatedAt:       conv.UpdatedAt.UTC(),
		Status:          string(authz.StatusAt(conv, s.now())),
		KnowledgeBaseID: conv.KnowledgeBaseID.String(),
		CurrentLeafID:   idString(conv.CurrentLeafID),
	}
	if conv.HistoryStrategy != nil {
		h := string(*conv.HistoryStrategy)
		c.HistoryStrategy = &h
	}
	return c
}

// eachMessagePage calls fn with each page of conv's messages, in sequence
// order, every question with its attempts and their sources as the viewer
// may read them now. Memory holds one page.
func (s *Service) eachMessagePage(ctx context.Context, conv *ent.Conversation, fn func([]Message) error) error {
	var after int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ms, err := s.client.Message.Query().
			Where(message.ConversationID(conv.ID), message.SequenceNoGT(after)).
			Order(ent.Asc(message.FieldSequenceNo)).
			Limit(s.limits.MessagePage).
			All(ctx)
		if err != nil {
			return store.DomainError(err, "message")
		}
		if len(ms) == 0 {
			return nil
		}
		page, err := s.messagePage(ctx, ms)
		if err != nil {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		if len(ms) < s.limits.MessagePage {
			return nil
		}
		after = ms[len(ms)-1].SequenceNo
	}
}

// messagePage converts ms with the attempts of its questions and their
// sources, re-authorised for the viewer (internal/sourceauth).
func (s *Service) messagePage(ctx context.Context, ms []*ent.Message) ([]Message, error) {
	var questions []uuid.UUID
	for _, m := range ms {
		if m.Role == message.RoleUSER {
			questions = append(questions, m.ID)
		}
	}
	byQuestion := map[uuid.UUID][]Attempt{}
	if len(questions) > 0 {
		atts, err := s.client.Attempt.Query().
			Where(attempt.UserMessageIDIn(questions...)).
			Order(ent.Asc(attempt.FieldCreatedAt), ent.Asc(attempt.FieldID)).
			All(ctx)
		if err != nil {
			return nil, store.DomainError(err, "attempt")
		}
		sources, err := s.sources(ctx, atts)
		if err != nil {
			return nil, err
		}
		for _, a := range atts {
			byQuestion[a.UserMessageID] = append(byQuestion[a.UserMessageID], exportAttempt(a, sources[a.ID]))
		}
	}
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = Message{
			ID:           m.ID.String(),
			ParentID:     idString(m.ParentID),
			Role:         string(m.Role),
			Content:      m.Content,
			CreatedAt:    m.CreatedAt.UTC(),
			SequenceNo:   m.SequenceNo,
			EditedFromID: idString(m.EditedFromID),
			Model:        m.Model,
			AttemptID:    idString(m.AttemptID),
			Attempts:     byQuestion[m.ID],
		}
	}
	return out, nil
}

// sources returns the sources of atts by attempt, in rank order, as the
// viewer may read them now.
func (s *Service) sources(ctx context.Context, atts []*ent.Attempt) (map[uuid.UUID][]Source, error) {
	out := map[uuid.UUID][]Source{}
	if len(atts) == 0 {
		return out, nil
	}
	ids := idsOf(atts, func(a *ent.Attempt) uuid.UUID { return a.ID })
	rows, err := s.client.Source.Query().
		Where(source.AttemptIDIn(ids...)).
		Order(ent.Asc(source.FieldAttemptID), ent.Asc(source.FieldRank)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	views, err := sourceauth.Of(ctx, s.client, rows)
	if err != nil {
		return nil, err
	}
	for _, sv := range views {
		r := sv.Source
		src := Source{
			Label: r.Label, Rank: r.Rank, Score: r.Score, Cited: r.Cited,
			DocumentVersion: r.DocumentVersion, Available: sv.Available,
		}
		if sv.Available {
			src.DocumentID = idString(r.DocumentID)
			src.DocumentTitle = r.DocumentTitle
			src.Snippet = r.Snippet
		}
		out[r.AttemptID] = append(out[r.AttemptID], src)
	}
	return out, nil
}

// exportAttempt is a as exported, with its sources.
func exportAttempt(a *ent.Attempt, sources []Source) Attempt {
	if sources == nil {
		sources = []Source{}
	}
	out := Attempt{
		ID:               a.ID.String(),
		Status:           string(a.Status),
		Model:            a.Model,
		PromptTokens:     a.PromptTokens,
		CompletionTokens: a.CompletionTokens,
		TotalTokens:      a.TotalTokens,
		Refused:          a.Refused,
		FailureCode:      a.FailureCode,
		Imported:         a.ContextManifest != nil && a.ContextManifest.Imported,
		CreatedAt:        a.CreatedAt.UTC(),
		Sources:          sources,
	}
	if a.CompletedAt != nil {
		t := a.CompletedAt.UTC()
		out.CompletedAt = &t
	}
	return out
}

// idsOf is the ids of rows, in order.
func idsOf[T any](rows []T, id func(T) uuid.UUID) []uuid.UUID {
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = id(r)
	}
	return ids
}

// idString is id as a string, or nil.
func idString(id *uuid.UUID) *string {
	if id == nil {
		return nil
	}
	s := id.String()
	return &s
}
