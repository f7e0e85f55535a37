package resolvers

import (
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/chat"
)

// askPayload is what ask, retryAttempt and editMessage return: the
// AskPayload of the engine's result, or its error, NOT_FOUND naming what
// when the engine found nothing it may show (notFound).
func askPayload(res *chat.AskResult, err error, what string) (*model.AskPayload, error) {
	if err != nil {
		return nil, notFound(err, what)
	}
	return &model.AskPayload{UserMessage: res.UserMessage, Attempt: res.Attempt, Deduplicated: res.Deduplicated}, nil
}
