package resolvers

import (
	"context"

	"entgo.io/contrib/entgql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/sharing"
)

// Sharing is share links (*sharing.Service; docs/API.md, "Share links").
type Sharing interface {
	Create(ctx context.Context, in sharing.CreateInput) (*ent.ShareLink, string, error)
	Update(ctx context.Context, id uuid.UUID, in sharing.UpdateInput) (*ent.ShareLink, error)
	Revoke(ctx context.Context, id uuid.UUID) (*ent.ShareLink, error)
	Mine(ctx context.Context) (*ent.ShareLinkQuery, error)
	Read(ctx context.Context, token string) (*sharing.SharedConversation, error)
	RestrictedAnswers(ctx context.Context, in sharing.AudienceInput) ([]sharing.RestrictedAnswer, error)
	LinkRestrictedAnswers(ctx context.Context, l *ent.ShareLink) ([]sharing.RestrictedAnswer, error)
}

var _ Sharing = (*sharing.Service)(nil)

// SharePath is the console's path of a share: SharePath + token.
const SharePath = "/s/"

// sharingOrUnavailable returns the share link service, or UNAVAILABLE.
func (r *Resolver) sharingOrUnavailable() (Sharing, error) {
	if r.sharing == nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "share links are not available")
	}
	return r.sharing, nil
}

// createShareLink makes a link and returns it with its token and path.
func (r *Resolver) createShareLink(ctx context.Context, in model.CreateShareLinkInput) (*model.CreateShareLinkPayload, error) {
	s, err := r.sharingOrUnavailable()
	if err != nil {
		return nil, err
	}
	l, token, err := s.Create(ctx, sharing.CreateInput{
		ConversationID: in.ConversationID, UpToMessageID: in.UpToMessageID,
		Audience: in.Audience, Users: in.Users, ExpiresAt: in.ExpiresAt,
		IncludeRestricted: in.IncludeRestrictedAnswers,
	})
	if err != nil {
		return nil, err
	}
	return &model.CreateShareLinkPayload{ShareLink: l, Token: token, URL: SharePath + token}, nil
}

// updateShareLink changes a link, keeping its token.
func (r *Resolver) updateShareLink(ctx context.Context, id uuid.UUID, in model.UpdateShareLinkInput) (*model.UpdateShareLinkPayload, error) {
	s, err := r.sharingOrUnavailable()
	if err != nil {
		return nil, err
	}
	l, err := s.Update(ctx, id, sharing.UpdateInput{
		Audience: in.Audience, Users: in.Users, ExpiresAt: in.ExpiresAt,
		ClearExpiresAt:    in.ClearExpiresAt != nil && *in.ClearExpiresAt,
		IncludeRestricted: in.IncludeRestrictedAnswers,
	})
	if err != nil {
		return nil, err
	}
	return &model.UpdateShareLinkPayload{ShareLink: l}, nil
}

// revokeShareLink ends a link.
func (r *Resolver) revokeShareLink(ctx context.Context, id uuid.UUID) (*model.RevokeShareLinkPayload, error) {
	s, err := r.sharingOrUnavailable()
	if err != nil {
		return nil, err
	}
	l, err := s.Revoke(ctx, id)
	if err != nil {
		return nil, err
	}
	return &model.RevokeShareLinkPayload{ShareLink: l}, nil
}

// myShareLinks pages the viewer's links, newest first.
func (r *Resolver) myShareLinks(ctx context.Context, first *int, after *entgql.Cursor[uuid.UUID]) (*ent.ShareLinkConnection, error) {
	s, err := r.sharingOrUnavailable()
	if err != nil {
		return nil, err
	}
	if first != nil && (*first < 0 || *first > 100) {
		return nil, badInput("first", "first must be 0 to 100")
	}
	if first == nil {
		n := 20
		first = &n
	}
	q, err := s.Mine(ctx)
	if err != nil {
		return nil, err
	}
	return q.Paginate(ctx, after, first, nil, nil, ent.WithShareLinkOrder(&ent.ShareLinkOrder{
		Direction: entgql.OrderDirectionDesc, Field: ent.ShareLinkOrderFieldCreatedAt,
	}))
}

// sharedConversation maps the engine's allow-listed share to the API's.
func (r *Resolver) sharedConversation(ctx context.Context, token string) (*model.SharedConversation, error) {
	s, err := r.sharingOrUnavailable()
	if err != nil {
		return nil, err
	}
	sc, err := s.Read(ctx, token)
	if err != nil {
		return nil, err
	}
	out := &model.SharedConversation{Title: sc.Title, Messages: make([]*model.SharedMessage, 0, len(sc.Messages))}
	for _, m := range sc.Messages {
		sm := &model.SharedMessage{Role: m.Role, Content: m.Content, CreatedAt: m.CreatedAt,
			Sources: make([]*model.SharedSource, 0, len(m.Sources)), Withheld: m.Withheld}
		if m.Withheld {
			reason := model.SharedWithheldReason(m.WithheldReason)
			sm.WithheldReason = &reason
		}
		for _, src := range m.Sources {
			ms := &model.SharedSource{Label: src.Label, Cited: src.Cited, Available: src.Available}
			if src.Available {
				title, snippet := src.Title, src.Snippet
				ms.Title, ms.Snippet = &title, &snippet
			}
			sm.Sources = append(sm.Sources, ms)
		}
		out.Messages = append(out.Messages, sm)
	}
	return out, nil
}

// shareRestrictedAnswers lists the answers a link would withhold, for the
// owner before creating it.
func (r *Resolver) shareRestrictedAnswers(ctx context.Context, in model.ShareAudienceInput) ([]*model.ShareRestrictedAnswer, error) {
	s, err := r.sharingOrUnavailable()
	if err != nil {
		return nil, err
	}
	rs, err := s.RestrictedAnswers(ctx, sharing.AudienceInput{ConversationID: in.ConversationID,
		UpToMessageID: in.UpToMessageID, Audience: in.Audience, Users: in.Users})
	if err != nil {
		return nil, err
	}
	return restrictedAnswersModel(rs), nil
}

// shareLinkRestrictedAnswers is ShareLink.restrictedAnswers.
func (r *Resolver) shareLinkRestrictedAnswers(ctx context.Context, l *ent.ShareLink) ([]*model.ShareRestrictedAnswer, error) {
	s, err := r.sharingOrUnavailable()
	if err != nil {
		return nil, err
	}
	rs, err := s.LinkRestrictedAnswers(ctx, l)
	if err != nil {
		return nil, err
	}
	return restrictedAnswersModel(rs), nil
}

// shareLinkIncluded is ShareLink.includedRestrictedAnswerIds.
func shareLinkIncluded(l *ent.ShareLink) []uuid.UUID {
	if l.RestrictedAnswersChosenAt == nil || l.IncludedAttemptIds == nil {
		return []uuid.UUID{}
	}
	return l.IncludedAttemptIds
}

// restrictedAnswersModel maps the engine's restricted answers to the
// API's.
func restrictedAnswersModel(rs []sharing.RestrictedAnswer) []*model.ShareRestrictedAnswer {
	out := make([]*model.ShareRestrictedAnswer, 0, len(rs))
	for _, a := range rs {
		m := &model.ShareRestrictedAnswer{MessageID: a.MessageID, AttemptID: a.AttemptID,
			Sources: make([]*model.ShareRestrictedSource, 0, len(a.Sources))}
		for _, src := range a.Sources {
			m.Sources = append(m.Sources, &model.ShareRestrictedSource{Label: src.Label, Title: src.Title,
				Reason: model.ShareRestriction(src.Reason)})
		}
		out = append(out, m)
	}
	return out
}
