package resolvers

import (
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
)

// errNodeNotFound is the one answer of Node and Nodes for an id that does
// not exist or is hidden from the viewer.
func errNodeNotFound() error { return domain.NotFound("node") }

// nodeError maps every "not found" of a node lookup, whatever the layer
// that said it (the table lookup, Ent, the engine), to errNodeNotFound;
// other failures (the database is down) pass through.
func nodeError(err error) error {
	if store.Classify(err) == store.ClassNotFound || domain.ErrorCode(err) == domain.CodeNotFound {
		return errNodeNotFound()
	}
	return err
}
