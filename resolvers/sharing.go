package resolvers

import (
	"context"

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
