package chat_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// maxAllocsPerAsk bounds the heap allocations of one Ask call (the
// question stored and the attempt created; the answer's run is held), the
// median of askAllocRuns asks, wired as cmd/ragchat serves, including the
// database driver's allocations. Before the engine was restructured
// (issue 32, at 2b172a6) the median was 2,641 on PostgreSQL and 2,637 on
// SQLite (2,684 and 2,669 under -race, as make test runs it); the bound is
// about 2 % above, so the restructured code does not allocate more
// (docs/BENCHMARKS.md, "Allocations per ask").
var maxAllocsPerAsk = map[string]uint64{
	"postgres": 2700,
	"sqlite3":  2700,
}

const askAllocRuns = 15

// TestAllocationsPerAsk counts the allocations of an Ask call on both
// backends and holds them to maxAllocsPerAsk.
func TestAllocationsPerAsk(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		served := func(d *chat.Deps) {
			d.AskLimiter = askrate.NewDBLimiter(db, nil)
			d.Models = modelprofile.New(db.Client, modelprofile.NewEndpoints(d.Model, d.Model, nil))
			d.SearchAttachments = true
		}
		e := newEnvDeps(t, db, nil, served, func(_ *chat.Config, st *domain.TenantSettings) {
			st.AskBurst, st.AskRatePerMinute = 1000, 1000
		})
		e.ask(t, alice, e.conversation(t, alice).ID, "上传文件最大是多少？") // warm up
		chat.WaitIdle(e.eng)
		var counts []uint64
		for range askAllocRuns {
			conv := e.conversation(t, alice)
			release := chat.HoldRuns(e.eng)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "那超过以后返回什么错误码？"})
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			counts = append(counts, after.Mallocs-before.Mallocs)
			release()
			e.wait(t, alice, r.Attempt.ID, 0)
			chat.WaitIdle(e.eng)
		}
		slices.Sort(counts)
		median := counts[len(counts)/2]
		t.Logf("allocations per Ask call on %s: median %d (min %d, max %d)", db.Dialect, median, counts[0], counts[len(counts)-1])
		limit, ok := maxAllocsPerAsk[db.Dialect]
		require.True(t, ok, "no bound for %s", db.Dialect)
		require.LessOrEqual(t, median, limit, "allocations per Ask call")
	})
}
