package chat_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// TestEngineLeavesItsClientCollectable: an engine keeps nothing about its
// Ent client beyond its own lifetime. Once the engine has shut down and
// its database is closed, the client can be garbage-collected. Before, an
// engine registered its client in process-global maps (the ask's
// prototypes, the read-audit installation) that were never cleared.
func TestEngineLeavesItsClientCollectable(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			collected := make(chan struct{})
			t.Run("ask", func(t *testing.T) {
				// The client is reachable from this subtest's cleanups (the
				// engine's shutdown, the database's close), which run when
				// it ends.
				db := storetest.Open(t, b)
				limiter := func(d *chat.Deps) { d.AskLimiter = askrate.NewDBLimiter(db, nil) }
				e := newEnvDeps(t, db, nil, limiter)
				runtime.AddCleanup(db.Client, func(c chan struct{}) { close(c) }, collected)
				conv := e.conversation(t, alice)
				for _, q := range []string{"上传文件最大是多少？", "那超过以后返回什么错误码？"} {
					e.ask(t, alice, conv.ID, q)
				}
				chat.WaitIdle(e.eng)
			})
			deadline := time.After(30 * time.Second)
			for {
				runtime.GC()
				select {
				case <-collected:
					return
				case <-deadline:
					t.Fatal("the Ent client is still reachable after its engine shut down and its database closed")
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
	}
}
