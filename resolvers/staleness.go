package resolvers

import (
	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/staleness"
)

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
