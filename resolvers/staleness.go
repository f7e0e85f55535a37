package resolvers

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/staleness"
	"github.com/ragchat/ragchat/internal/viewer"
)

// staleness is Attempt.staleness: the comparison of the attempt's sources
// with their documents' current versions, as the viewer may see them now
// (internal/staleness; docs/API.md, "Stale answers").
func (r *Resolver) staleness(ctx context.Context, a *ent.Attempt) (*model.AttemptStaleness, error) {
	st, err := staleness.Of(ctx, r.client, a)
	if err != nil {
		return nil, err
	}
	out := &model.AttemptStaleness{Stale: st.Stale, Sources: make([]*model.SourceStaleness, len(st.Sources))}
	for i, s := range st.Sources {
		out.Sources[i] = &model.SourceStaleness{
			Source:                 s.Source,
			Change:                 sourceChange(s.Change),
			CitedVersion:           s.CitedVersion,
			CurrentVersion:         s.CurrentVersion,
			StillContainsCitedText: s.StillContainsCitedText,
		}
	}
	return out, nil
}

// sourceChange maps a source's change kind to the GraphQL enum.
func sourceChange(c staleness.SourceChange) model.SourceChange {
	switch c {
	case staleness.SourceChanged:
		return model.SourceChangeChanged
	case staleness.SourceDeleted:
		return model.SourceChangeDeleted
	default:
		return model.SourceChangeUnavailable
	}
}

// reask asks a stale attempt's standalone question again on the current
// branch (engine.Reask), answering with the model chosen as in ask.
func (r *Resolver) reask(ctx context.Context, attemptID uuid.UUID, clientRequestID *string, profileID *uuid.UUID, params *domain.ModelParameters) (*model.ReaskAttemptPayload, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	key := orEmpty(clientRequestID)
	res, err := r.engine.Reask(ctx, chat.RetryInput{AttemptID: attemptID, ClientRequestID: key, Model: modelChoice(profileID, params)})
	if err != nil {
		return nil, notFound(err, "attempt")
	}
	return &model.ReaskAttemptPayload{UserMessage: res.UserMessage, Attempt: res.Attempt, Deduplicated: res.Deduplicated}, nil
}
