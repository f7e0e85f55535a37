package portability_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/portability"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestBulkExport streams GET /export/conversations.jsonl: one JSON export
// per line for each of the viewer's own conversations, without another
// user's, a deleted or a temporary one; no token is 401.
func TestBulkExport(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		var want []string
		for i := 0; i < 3; i++ {
			c := servertest.CreateConversation(t, alice)
			want = append(want, c)
		}
		answer(t, alice, want[0], "上传文件最大是多少？")
		servertest.CreateConversation(t, bob)
		gone := servertest.CreateConversation(t, alice)
		servertest.MustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": gone}, nil)
		temp := servertest.CreateConversation(t, alice)
		h.DB.Client.Conversation.UpdateOneID(uuid.MustParse(temp)).SetTemporaryExpiresAt(time.Now().Add(time.Hour)).ExecX(sysCtx())

		url := strings.TrimSuffix(h.URL, "/graphql") + "/export/conversations.jsonl"
		res := get(t, url, "")
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("without a token: %d", res.StatusCode)
		}
		res = get(t, url, h.Token(t, "demo", "alice", []string{"member"}))
		defer res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/x-ndjson") {
			t.Fatalf("status %d, type %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		var got []string
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			var doc portability.Document
			if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
				t.Fatalf("line %d: %v", len(got)+1, err)
			}
			got = append(got, doc.Conversation.ID)
			if doc.Conversation.ID == want[0] && len(doc.Messages) != 2 {
				t.Errorf("the answered conversation has %d messages", len(doc.Messages))
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("streamed %v, want %v", got, want)
		}
	})
}

// TestBulkExportStopsOnDisconnect ends the stream's context after its
// first line: WriteJSONL returns at once with the context's error, having
// written no more; over HTTP, a client that goes away mid-stream leaves no
// goroutine behind.
func TestBulkExportStopsOnDisconnect(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		for i := 0; i < 4; i++ {
			servertest.CreateConversation(t, alice)
		}
		svc := portability.New(h.DB.Client, h.Feed, portability.Options{Limits: portability.Limits{ConversationPage: 1, MessagePage: 1}})
		ctx, cancel := context.WithCancel(viewer.NewContext(context.Background(),
			&viewer.Viewer{TenantID: "demo", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}))
		defer cancel()
		w := &cancelWriter{cancel: cancel}
		err := svc.WriteJSONL(ctx, w, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("WriteJSONL: %v, want context.Canceled", err)
		}
		if w.lines != 1 {
			t.Errorf("%d lines written after the cancel, want 1", w.lines)
		}

		baseline := runtime.NumGoroutine()
		url := strings.TrimSuffix(h.URL, "/graphql") + "/export/conversations.jsonl"
		res := get(t, url, h.Token(t, "demo", "alice", []string{"member"}))
		line, err := bufio.NewReader(res.Body).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, `{"version":"ragchat.conversation/v1"`) {
			t.Fatalf("first line %q: %v", line, err)
		}
		res.Body.Close()
		http.DefaultClient.CloseIdleConnections()
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > baseline && time.Now().Before(deadline) {
			runtime.Gosched()
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > baseline {
			t.Errorf("%d goroutines after the client left, baseline %d", n, baseline)
		}
	})
}

// cancelWriter counts the lines written to it and cancels the stream's
// context after the first.
type cancelWriter struct {
	cancel func()
	lines  int
}

// Write implements io.Writer.
func (w *cancelWriter) Write(b []byte) (int, error) {
	w.lines += strings.Count(string(b), "\n")
	if w.lines > 0 {
		w.cancel()
	}
	return len(b), nil
}

// get sends GET url with token (none when "").
func get(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(servertest.Ctx(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
