package portability_test

import (
	"context"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/portability"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// oneQuestion is a ChatGPT export of one conversation with one question.
const oneQuestion = `[{"title": "One", "mapping": {"q": {"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["one question"]}}, "parent": null, "children": []}}}]`

// TestImportRate meters imports per user, in the database: with a burst
// of two and no refill to speak of, alice's third import is RATE_LIMITED
// (extensions.retryAfterSeconds, limit "importRate") and writes nothing,
// on this replica and on another one on the same database; bob's bucket
// is his own, and alice's asks are metered apart from her imports.
func TestImportRate(t *testing.T) {
	slow := func(c *config.Config) { c.Imports.Burst, c.Imports.RatePerMinute = 2, 0.001 }
	eachBackendWith(t, servertest.Options{Config: slow}, func(t *testing.T, h *servertest.Harness) {
		other := servertest.Start(t, testdb.Backend{}, servertest.Options{Beside: h, Config: slow})
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		for i := 0; i < 2; i++ {
			if _, r := importContent(t, alice, "CHATGPT", oneQuestion, ""); r != nil {
				t.Fatalf("import %d: %+v", i, r.Errors)
			}
		}
		n := conversationCount(t, alice)
		for _, c := range []*gqlclient.Client{alice, other.Client(t, "alice")} {
			_, r := importContent(t, c, "CHATGPT", oneQuestion, "")
			if r == nil {
				t.Fatal("the third import succeeded")
			}
			e := r.Errors[0]
			if secs, _ := e.Extensions["retryAfterSeconds"].(float64); e.Code() != "RATE_LIMITED" || e.Extensions["limit"] != "importRate" || secs < 1 {
				t.Errorf("%s limit %v retryAfterSeconds %v (%s), want RATE_LIMITED importRate ≥ 1", e.Code(), e.Extensions["limit"], e.Extensions["retryAfterSeconds"], e.Message)
			}
		}
		if m := conversationCount(t, alice); m != n {
			t.Errorf("%d conversations after the refused imports, want %d", m, n)
		}
		if _, r := importContent(t, bob, "CHATGPT", oneQuestion, ""); r != nil {
			t.Errorf("bob's import: %+v", r.Errors)
		}
		conv := servertest.CreateConversation(t, alice)
		answer(t, alice, conv, "上传文件最大是多少？")
	})
}

// blockWrites makes every import of svc, before it writes, signal
// entered and wait for release or for its context to end; then it writes
// with that context.
func blockWrites(svc *portability.Service) (entered chan struct{}, release chan struct{}) {
	entered, release = make(chan struct{}, 1), make(chan struct{})
	portability.SetBeforeWrite(svc, func(ctx context.Context) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	return entered, release
}

// TestImportRunningAndTimeout bounds the imports of one instance: with
// one running slot, an import while another runs is UNAVAILABLE at once
// (limit "runningImports", retryAfterSeconds), and the slot is free again
// once the first ends; an import still writing at its deadline is
// cancelled, UNAVAILABLE with limit "importTime", and writes nothing.
func TestImportRunningAndTimeout(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		ctx := viewer.NewContext(servertest.Ctx(t), &viewer.Viewer{TenantID: "demo", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}})
		in := portability.ImportInput{Format: portability.ImportChatGPT, Content: oneQuestion}
		svc := portability.New(h.DB.Client, h.Feed, portability.Options{Limits: portability.Limits{Running: 1}})
		entered, release := blockWrites(svc)
		first := make(chan error, 1)
		go func() {
			_, err := svc.Import(ctx, in)
			first <- err
		}()
		<-entered
		_, err := svc.Import(ctx, in)
		if d := domain.ErrorDetails(err); domain.ErrorCode(err) != domain.CodeUnavailable || d["limit"] != portability.LimitRunningImports || d["retryAfterSeconds"] == nil {
			t.Errorf("a second import while one runs: %v %v, want UNAVAILABLE runningImports", err, d)
		}
		close(release)
		if err := <-first; err != nil {
			t.Fatalf("the first import: %v", err)
		}
		if _, err := svc.Import(ctx, in); err != nil {
			t.Errorf("an import after the first ended: %v", err)
		}
		<-entered

		before := storedRows(t, h)
		svc = portability.New(h.DB.Client, h.Feed, portability.Options{Limits: portability.Limits{Timeout: 50 * time.Millisecond}})
		blockWrites(svc)
		_, err = svc.Import(ctx, in)
		if d := domain.ErrorDetails(err); domain.ErrorCode(err) != domain.CodeUnavailable || d["limit"] != portability.LimitImportTime {
			t.Errorf("an import past its deadline: %v %v, want UNAVAILABLE importTime", err, d)
		}
		if n := storedRows(t, h); n != before {
			t.Errorf("%d messages and attempts after the cancelled import, want %d", n, before)
		}
	})
}
