package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestAttachmentsUnderSupportGrant: a support agent without a grant, with
// a pending one and after the revoke gets, for Conversation.attachments
// and node(id) of an attachment, exactly the errors of a random id; under
// an approved grant they list and read the attachment as they read the
// conversation's messages. An upload through POST /files into the
// conversation is NOT_FOUND at every stage, byte-identical to an unknown
// conversation's (a grant never writes).
func TestAttachmentsUnderSupportGrant(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, sam := h.Client(t, "alice"), h.Client(t, "sam", "support")
		aliceToken := h.Token(t, "demo", "alice", []string{"member"})
		samToken := h.Token(t, "demo", "sam", []string{"support"})
		filesURL := strings.TrimSuffix(h.URL, "/graphql") + "/files"
		conv := createConversation(t, alice)
		status, out := multipartUpload(t, h.URL, aliceToken, conv, "notes.md", []byte("# Notes\nThe gate code is 4711."))
		require.Equal(t, http.StatusOK, status, "%v", out)
		id := out["data"].(map[string]any)["uploadAttachment"].(map[string]any)["attachment"].(map[string]any)["id"].(string)
		st, _ := settled(t, h.URL, aliceToken, id)
		require.Equal(t, "READY", st)
		const (
			listQ = `query($c: ID!) { conversation(id: $c) { attachments { id name status } } }`
			nodeQ = `query($a: ID!) { node(id: $a) { id ... on Attachment { name } } }`
		)
		noUpload := func(stage string) {
			t.Helper()
			st, got := filesUpload(t, filesURL, samToken, conv, "agent.txt", []byte("x"))
			stU, unknown := filesUpload(t, filesURL, samToken, uuid.NewString(), "agent.txt", []byte("x"))
			require.Equal(t, http.StatusNotFound, st, stage)
			require.Equal(t, stU, st, stage)
			gj, _ := json.Marshal(got)
			uj, _ := json.Marshal(unknown)
			require.Equal(t, string(uj), string(gj), stage)
		}
		hidden := func(stage string) {
			t.Helper()
			sameAsRandom(t, sam, listQ, "c", conv, nil)
			sameAsRandom(t, sam, nodeQ, "a", id, nil)
			noUpload(stage)
		}
		hidden("without a grant")
		g := request(t, sam, conv, nil)
		hidden("with a pending grant")

		if a := decide(t, alice, approveGrant, g.ID); a.Status != "APPROVED" {
			t.Fatalf("approve: %+v", a)
		}
		var list struct {
			Conversation struct {
				Attachments []struct{ ID, Name, Status string }
			}
		}
		mustDo(t, sam, listQ, map[string]any{"c": conv}, &list)
		require.Len(t, list.Conversation.Attachments, 1)
		require.Equal(t, id, list.Conversation.Attachments[0].ID)
		require.Equal(t, "notes.md", list.Conversation.Attachments[0].Name)
		require.Equal(t, "READY", list.Conversation.Attachments[0].Status)
		var node struct{ Node *struct{ ID, Name string } }
		mustDo(t, sam, nodeQ, map[string]any{"a": id}, &node)
		require.NotNil(t, node.Node)
		require.Equal(t, "notes.md", node.Node.Name)
		noUpload("under the grant")

		if r := decide(t, alice, revokeGrant, g.ID); r.Status != "REVOKED" {
			t.Fatalf("revoke: %+v", r)
		}
		hidden("after the revoke")
	})
}
