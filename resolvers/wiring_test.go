package resolvers_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/resolvers"
)

// TestNewLeavesTheClientCollectable: building a resolver installs nothing
// on its Ent client and keeps nothing about it beyond the resolver's own
// lifetime. Before, New installed the source collector as a side effect
// and registered the client in a process-global map that was never
// cleared, so every client a resolver was built on stayed reachable.
func TestNewLeavesTheClientCollectable(t *testing.T) {
	collected := make(chan struct{})
	func() {
		c := ent.NewClient()
		runtime.AddCleanup(c, func(ch chan struct{}) { close(ch) }, collected)
		r := resolvers.New(resolvers.Deps{Client: c})
		if n := len(c.Source.Interceptors()); n != 0 {
			t.Errorf("New installed %d interceptors on the client's sources", n)
		}
		runtime.KeepAlive(r)
	}()
	deadline := time.After(30 * time.Second)
	for {
		runtime.GC()
		select {
		case <-collected:
			return
		case <-deadline:
			t.Fatal("the Ent client is still reachable after the resolver built on it was dropped")
		case <-time.After(20 * time.Millisecond):
		}
	}
}
