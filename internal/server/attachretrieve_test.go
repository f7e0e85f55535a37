package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestAsksRetrieveTheConversationsAttachments: a text attachment with a
// distinctive fact uploaded into alice's conversation A is a source of an
// ask in A, and of no ask in her conversation B.
func TestAsksRetrieveTheConversationsAttachments(t *testing.T) {
	h := start(t, servertest.Options{})
	alice := h.Client(t, "alice")
	aliceToken := h.Token(t, "demo", "alice", []string{"member"})
	convA := createConversation(t, alice)
	convB := createConversation(t, alice)
	const fact = "The Zorblax reactor in hangar nine runs on purple tourmaline crystals."
	status, out := multipartUpload(t, h.URL, aliceToken, convA, "zorblax.txt", []byte(fact))
	require.Equal(t, http.StatusOK, status, "%v", out)
	require.Nil(t, out["errors"], "%v", out)
	id := out["data"].(map[string]any)["uploadAttachment"].(map[string]any)["attachment"].(map[string]any)["id"].(string)
	st, _ := settled(t, h.URL, aliceToken, id)
	require.Equal(t, "READY", st)

	snippets := func(conv, key string) []string {
		var asked struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, `mutation($c: ID!, $k: String!) { ask(input: {conversationId: $c, clientMessageId: $k,
		  question: "What does the Zorblax reactor in hangar nine run on?"}) { attempt { id } } }`,
			map[string]any{"c": conv, "k": key}, &asked)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var got struct {
				Attempt struct {
					Status  string
					Sources []struct{ Snippet string }
				}
			}
			mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { status sources { snippet } } }`,
				map[string]any{"a": asked.Ask.Attempt.ID}, &got)
			if got.Attempt.Status != "PENDING" && got.Attempt.Status != "STREAMING" {
				var out []string
				for _, s := range got.Attempt.Sources {
					out = append(out, s.Snippet)
				}
				return out
			}
			require.True(t, time.Now().Before(deadline), "attempt still %s", got.Attempt.Status)
			time.Sleep(20 * time.Millisecond)
		}
	}
	inA := snippets(convA, "ask-a")
	require.True(t, containsFact(inA), "sources in A: %q", inA)
	inB := snippets(convB, "ask-b")
	require.False(t, containsFact(inB), "sources in B: %q", inB)
}

func containsFact(snippets []string) bool {
	for _, s := range snippets {
		if strings.Contains(s, "tourmaline") {
			return true
		}
	}
	return false
}
