package resolvers

import (
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/chat"
)

// askPayload is the AskPayload of an engine result: what ask, retryAttempt
// and editMessage return.
func askPayload(res *chat.AskResult) *model.AskPayload {
	return &model.AskPayload{UserMessage: res.UserMessage, Attempt: res.Attempt, Deduplicated: res.Deduplicated}
}
