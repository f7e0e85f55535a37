package portability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// eachBackend runs fn against a server on every test backend, with an
// import rate the tests here do not reach (TestImportRate sets its own).
func eachBackend(t *testing.T, fn func(t *testing.T, h *servertest.Harness)) {
	t.Helper()
	eachBackendWith(t, servertest.Options{Config: func(c *config.Config) { c.Imports.Burst = 1000 }}, fn)
}

// eachBackendWith runs fn against a server started with o on every test
// backend.
func eachBackendWith(t *testing.T, o servertest.Options, fn func(t *testing.T, h *servertest.Harness)) {
	t.Helper()
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := servertest.Start(t, b, o)
			fn(t, h)
		})
	}
}

// sysCtx is the context of a test reading the database behind the API.
func sysCtx() context.Context {
	return viewer.SystemJobContext(context.Background(), viewer.JobPurge)
}

// answer asks question in conv and waits for a COMPLETED answer; it
// returns the attempt id.
func answer(t *testing.T, c *gqlclient.Client, conv, question string) string {
	t.Helper()
	a := servertest.Ask(t, c, conv, question)
	if s := servertest.WaitDone(t, c, a); s != "COMPLETED" {
		t.Fatalf("attempt ended %s", s)
	}
	return a
}

// export runs exportConversation and returns its payload.
func export(t *testing.T, c *gqlclient.Client, conv, format string) (filename, contentType, content string) {
	t.Helper()
	var out struct {
		ExportConversation struct{ Format, Filename, ContentType, Content string }
	}
	servertest.MustDo(t, c, `query($c: ID!, $f: ConversationExportFormat!) { exportConversation(id: $c, format: $f) { format filename contentType content } }`,
		map[string]any{"c": conv, "f": format}, &out)
	e := out.ExportConversation
	if e.Format != format {
		t.Fatalf("format %s, want %s", e.Format, format)
	}
	return e.Filename, e.ContentType, e.Content
}

// importContent runs importConversations and returns the new
// conversations' ids, or the response when it has errors.
func importContent(t *testing.T, c *gqlclient.Client, format, content, key string) ([]string, *gqlclient.Response) {
	t.Helper()
	vars := map[string]any{"f": format, "c": content}
	if key != "" {
		vars["k"] = key
	} else {
		vars["k"] = nil
	}
	r, err := c.Do(servertest.Ctx(t), `mutation($f: ImportFormat!, $c: String!, $k: String) { importConversations(input: {format: $f, content: $c, clientRequestId: $k}) { conversations { id } } }`, vars)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) > 0 {
		return nil, r
	}
	var out struct {
		ImportConversations struct{ Conversations []struct{ ID string } }
	}
	if err := r.Decode(&out); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range out.ImportConversations.Conversations {
		ids = append(ids, c.ID)
	}
	return ids, nil
}

// conversationCount is how many conversations c's viewer has.
func conversationCount(t *testing.T, c *gqlclient.Client) int {
	t.Helper()
	var out struct{ Conversations struct{ TotalCount int } }
	servertest.MustDo(t, c, `{ conversations(first: 1) { totalCount } }`, nil, &out)
	return out.Conversations.TotalCount
}

// shape is an exported conversation without its ids and times: each
// message by sequence number, with its parent's and edited message's
// sequence numbers.
type shape struct {
	Title    string
	Strategy *string
	Leaf     int64
	Messages []string
}

// shapeOf decodes a JSON export into its shape.
func shapeOf(t *testing.T, content string) shape {
	t.Helper()
	var doc struct {
		Version      string
		Conversation struct {
			Title           string
			HistoryStrategy *string
			CurrentLeafID   *string
		}
		Messages []struct {
			ID, Role, Content      string
			ParentID, EditedFromID *string
			SequenceNo             int64
			CreatedAt              time.Time
		}
	}
	if err := json.Unmarshal([]byte(content), &doc); err != nil {
		t.Fatalf("export is not JSON: %v", err)
	}
	if doc.Version != "ragchat.conversation/v1" {
		t.Fatalf("version %q", doc.Version)
	}
	seq := map[string]int64{}
	s := shape{Title: doc.Conversation.Title, Strategy: doc.Conversation.HistoryStrategy}
	for i, m := range doc.Messages {
		if m.SequenceNo != int64(i+1) {
			t.Errorf("message %d has sequence number %d", i, m.SequenceNo)
		}
		seq[m.ID] = m.SequenceNo
		var p, e int64
		if m.ParentID != nil {
			p = seq[*m.ParentID]
		}
		if m.EditedFromID != nil {
			e = seq[*m.EditedFromID]
		}
		s.Messages = append(s.Messages, fmt.Sprintf("%d %s parent=%d edited=%d %q", m.SequenceNo, m.Role, p, e, m.Content))
	}
	if doc.Conversation.CurrentLeafID != nil {
		s.Leaf = seq[*doc.Conversation.CurrentLeafID]
	}
	return s
}
