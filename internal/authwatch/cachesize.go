package authwatch

import "github.com/ragchat/ragchat/internal/cachesize"

// CacheSizes implements cachesize.Reporter: the users whose newest token
// this replica remembers (bounded by the size given to StartViewers) and
// the streams held for their tokens (bounded by the open subscriptions).
func (w *Viewers) CacheSizes() []cachesize.Size {
	w.mu.Lock()
	defer w.mu.Unlock()
	held := 0
	for _, hs := range w.holds {
		held += len(hs)
	}
	return []cachesize.Size{
		{Name: "authwatch_tokens", Entries: w.newest.Len(), Bound: w.size},
		{Name: "authwatch_held_streams", Entries: held},
	}
}
