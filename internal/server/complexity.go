package server

import (
	"math"

	"github.com/ragchat/ragchat/graph"
	"github.com/ragchat/ragchat/resolvers"

	"github.com/google/uuid"
)

// listFactor is the assumed size of an unpaginated list field (an
// attempt's sources, retries and feedback, a message's attempts).
const listFactor = 10

// pageCost is the complexity of a connection: its children once per
// requested item, plus the connection itself.
func pageCost(child int, first, last *int) int {
	n := 1
	switch {
	case first != nil:
		n = *first
	case last != nil:
		n = *last
	}
	return saturatingMul(max(n, 1), child) + 1
}

// saturatingMul multiplies two non-negative numbers, capped below the
// largest int.
func saturatingMul(n, child int) int {
	if child > 0 && n > (math.MaxInt-1)/child {
		return math.MaxInt - 1
	}
	return n * child
}

// complexityRoot multiplies the cost of connections by their page size and
// of list fields by listFactor, so that the complexity limit bounds the rows
// an operation can load.
func complexityRoot() graph.ComplexityRoot {
	var c graph.ComplexityRoot
	list := func(child int) int { return saturatingMul(listFactor, child) + 1 }

	c.Query.Conversations = connectionCost
	c.Query.AdminConversations = connectionCost
	c.Query.Feedbacks = connectionCost
	c.Query.KnowledgeBases = connectionCost
	c.Query.Nodes = func(child int, ids []uuid.UUID) int { return saturatingMul(max(len(ids), 1), child) + 1 }
	c.Conversation.Messages = connectionCost
	c.Conversation.Attempts = connectionCost
	c.KnowledgeBase.Documents = connectionCost
	c.Attempt.Sources = list
	c.Attempt.Retries = list
	c.Attempt.Feedback = list
	c.Message.Attempts = list
	c.AttemptEvent.Sources = list
	return c
}

// connectionCost is the cost of a connection field (pageCost); its order
// and filter arguments do not change it.
func connectionCost[Order, Where any](child int, _ *resolvers.Cursor, first *int, _ *resolvers.Cursor, last *int, _ Order, _ Where) int {
	return pageCost(child, first, last)
}
