package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

const uploadMutation = `mutation($c: ID!, $f: Upload!) { uploadAttachment(conversationId: $c, file: $f) {
  attachment { id name mediaType size sha256 status failureCode conversationId } } }`

// multipartUpload sends uploadMutation by the GraphQL multipart request
// spec and returns the HTTP status and the decoded body.
func multipartUpload(t *testing.T, url, token, conv, name string, data []byte) (int, map[string]any) {
	t.Helper()
	return multipartDo(t, url, token, uploadMutation, map[string]any{"c": conv}, "f", name, data)
}

// multipartDo sends query with vars by the GraphQL multipart request
// spec, the file in the variable fileVar.
func multipartDo(t *testing.T, url, token, query string, vars map[string]any, fileVar, name string, data []byte) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	all := map[string]any{fileVar: nil}
	for k, v := range vars {
		all[k] = v
	}
	ops, _ := json.Marshal(map[string]any{"query": query, "variables": all})
	require.NoError(t, mw.WriteField("operations", string(ops)))
	require.NoError(t, mw.WriteField("map", `{"0":["variables.`+fileVar+`"]}`))
	fw, err := mw.CreateFormFile("0", name)
	require.NoError(t, err)
	_, _ = fw.Write(data)
	require.NoError(t, mw.Close())
	return send(t, url, token, mw.FormDataContentType(), &body)
}

// filesUpload sends a POST /files.
func filesUpload(t *testing.T, url, token, conv, name string, data []byte) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("conversationId", conv))
	fw, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, _ = fw.Write(data)
	require.NoError(t, mw.Close())
	return send(t, url, token, mw.FormDataContentType(), &body)
}

func send(t *testing.T, url, token, contentType string, body io.Reader) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	return resp.StatusCode, out
}

// settled waits for attachment id, read as token, to be READY or FAILED:
// an upload returns once the file is stored, UPLOADED, and its processing
// goes on in the background. It returns the attachment's status and
// failure code.
func settled(t *testing.T, url, token, id string) (status string, failureCode any) {
	t.Helper()
	q, _ := json.Marshal(map[string]any{
		"query":     `query($id: ID!) { node(id: $id) { ... on Attachment { status failureCode } } }`,
		"variables": map[string]any{"id": id},
	})
	for range 1500 {
		code, out := send(t, url, token, "application/json", bytes.NewReader(q))
		require.Equal(t, http.StatusOK, code, "%v", out)
		node, _ := out["data"].(map[string]any)["node"].(map[string]any)
		require.NotNil(t, node, "%v", out)
		if st := node["status"].(string); st == "READY" || st == "FAILED" {
			return st, node["failureCode"]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("attachment %s never became READY or FAILED", id)
	return "", nil
}

func firstError(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	errs, ok := out["errors"].([]any)
	require.True(t, ok, "no errors in %v", out)
	ext := errs[0].(map[string]any)["extensions"].(map[string]any)
	return ext
}

func TestUploadAttachment(t *testing.T) {
	h := start(t, servertest.Options{})
	h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) { s.AttachmentMaxFileBytes = 1000 })
	alice := h.Client(t, "alice")
	aliceToken := h.Token(t, "demo", "alice", []string{"member"})
	bobToken := h.Token(t, "demo", "bob", []string{"member"})
	convA := createConversation(t, alice)
	convB := createConversation(t, alice)
	filesURL := strings.TrimSuffix(h.URL, "/graphql") + "/files"

	status, out := multipartUpload(t, h.URL, aliceToken, convA, "notes.md", []byte("# Notes\nThe gate code is 4711."))
	require.Equal(t, http.StatusOK, status, "%v", out)
	require.Nil(t, out["errors"], "%v", out)
	a := out["data"].(map[string]any)["uploadAttachment"].(map[string]any)["attachment"].(map[string]any)
	require.Equal(t, "UPLOADED", a["status"], "the request does not wait for the processing")
	require.Equal(t, "text/markdown", a["mediaType"])
	require.Equal(t, convA, a["conversationId"])
	id := a["id"].(string)
	st, _ := settled(t, h.URL, aliceToken, id)
	require.Equal(t, "READY", st)

	status, out = filesUpload(t, filesURL, aliceToken, convA, "plain.txt", []byte("plain words"))
	require.Equal(t, http.StatusCreated, status, "%v", out)
	require.Equal(t, "UPLOADED", out["status"])
	st, _ = settled(t, h.URL, aliceToken, out["id"].(string))
	require.Equal(t, "READY", st)

	// Refusals: over the limit, an unsupported type, another user's
	// conversation (the same NOT_FOUND as an unknown one).
	_, out = multipartUpload(t, h.URL, aliceToken, convA, "big.txt", bytes.Repeat([]byte("a"), 1001))
	ext := firstError(t, out)
	require.Equal(t, "BAD_USER_INPUT", ext["code"])
	require.Equal(t, "maxFileBytes", ext["limit"])
	status, out = filesUpload(t, filesURL, aliceToken, convA, "x.png", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 32)...))
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "UNSUPPORTED_MEDIA_TYPE", firstError(t, out)["reason"])
	_, foreign := multipartUpload(t, h.URL, bobToken, convA, "x.txt", []byte("x"))
	_, unknown := multipartUpload(t, h.URL, bobToken, "0190a8d4-0000-7000-8000-000000000000", "x.txt", []byte("x"))
	require.Equal(t, "NOT_FOUND", firstError(t, foreign)["code"])
	fj, _ := json.Marshal(foreign["errors"])
	uj, _ := json.Marshal(unknown["errors"])
	require.Equal(t, string(uj), string(fj))

	// The attachment is A's: listed under A only, readable as a node by
	// alice, NOT_FOUND for bob exactly like an unknown id.
	var lists struct {
		A struct{ Attachments []struct{ ID string } } `json:"a"`
		B struct{ Attachments []struct{ ID string } } `json:"b"`
	}
	mustDo(t, alice, `query($a: ID!, $b: ID!) { a: node(id: $a) { ... on Conversation { attachments { id } } }
	  b: node(id: $b) { ... on Conversation { attachments { id } } } }`, map[string]any{"a": convA, "b": convB}, &lists)
	require.Len(t, lists.A.Attachments, 2)
	require.Empty(t, lists.B.Attachments)
	var node struct{ Node *struct{ ID string } }
	mustDo(t, alice, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id}, &node)
	require.NotNil(t, node.Node)
	bob := h.Client(t, "bob")
	_, e1 := errorCode(t, bob, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id})
	_, e2 := errorCode(t, bob, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": "0190a8d4-0000-7000-8000-000000000000"})
	require.Equal(t, e2.Message, e1.Message)
}

// TestAttachmentProgressEvents: an upload's states reach the owner's
// viewerEvents as ATTACHMENT_UPDATED, in order.
func TestAttachmentProgressEvents(t *testing.T) {
	h := start(t, servertest.Options{})
	alice := h.Client(t, "alice")
	feed := &feedSub{t: t, c: alice}
	var err error
	feed.sub, err = alice.SubscribeSSE(ctxT(t), `subscription { viewerEvents { kind conversationId attemptId attemptStatus at
	  conversation { id title status } attempt { id status } attachmentId attachmentStatus } }`, nil)
	require.NoError(t, err)
	t.Cleanup(feed.sub.Stop)
	feed.ready()

	conv := createConversation(t, alice)
	status, out := multipartUpload(t, h.URL, h.Token(t, "demo", "alice", []string{"member"}), conv, "n.txt", []byte("words"))
	require.Equal(t, http.StatusOK, status)
	id := out["data"].(map[string]any)["uploadAttachment"].(map[string]any)["attachment"].(map[string]any)["id"].(string)

	var got []string
	for len(got) < 3 {
		ctx, cancel := context.WithTimeout(ctxT(t), 20*time.Second)
		r, err := feed.sub.Next(ctx)
		cancel()
		require.NoError(t, err)
		var ev struct {
			ViewerEvents struct {
				Kind, ConversationID string
				AttachmentID         *string
				AttachmentStatus     *string
			}
		}
		require.NoError(t, r.Decode(&ev))
		e := ev.ViewerEvents
		if e.Kind != "ATTACHMENT_UPDATED" {
			continue
		}
		require.Equal(t, conv, e.ConversationID)
		require.Equal(t, id, *e.AttachmentID)
		got = append(got, *e.AttachmentStatus)
	}
	require.Equal(t, []string{"UPLOADED", "CHUNKING", "READY"}, got)
}

// TestUploadRateLimited: past the configured upload burst, POST /files
// and uploadAttachment are RATE_LIMITED naming uploadRate with
// retryAfterSeconds (POST /files: 429 with Retry-After), and nothing is
// stored.
func TestUploadRateLimited(t *testing.T) {
	h := start(t, servertest.Options{Config: func(c *config.Config) {
		c.Attachments.UploadRatePerMinute = 1
		c.Attachments.UploadBurst = 2
	}})
	alice := h.Client(t, "alice")
	token := h.Token(t, "demo", "alice", []string{"member"})
	conv := createConversation(t, alice)
	filesURL := strings.TrimSuffix(h.URL, "/graphql") + "/files"
	for i := range 2 {
		status, out := filesUpload(t, filesURL, token, conv, fmt.Sprintf("%d.txt", i), []byte("words"))
		require.Equal(t, http.StatusCreated, status, "%v", out)
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("conversationId", conv))
	fw, err := mw.CreateFormFile("file", "3.txt")
	require.NoError(t, err)
	_, _ = fw.Write([]byte("one too many"))
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, filesURL, &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	ext := firstError(t, out)
	require.Equal(t, "RATE_LIMITED", ext["code"])
	require.Equal(t, "uploadRate", ext["limit"])
	secs, ok := ext["retryAfterSeconds"].(float64)
	require.True(t, ok, "%v", ext)
	require.Positive(t, secs)
	require.Equal(t, strconv.Itoa(int(secs)), resp.Header.Get("Retry-After"))

	_, gql := multipartUpload(t, h.URL, token, conv, "4.txt", []byte("and another"))
	require.Equal(t, "RATE_LIMITED", firstError(t, gql)["code"])

	var list struct {
		Conversation struct{ Attachments []struct{ ID string } }
	}
	mustDo(t, alice, `query($c: ID!) { conversation(id: $c) { attachments { id } } }`, map[string]any{"c": conv}, &list)
	require.Len(t, list.Conversation.Attachments, 2, "a refused upload stores nothing")
}
