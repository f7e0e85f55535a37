package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

const askWithAttachments = `mutation($c: ID!, $k: String!, $q: String!, $ids: [ID!]) {
  ask(input: {conversationId: $c, clientMessageId: $k, question: $q, attachmentIds: $ids}) {
    userMessage { id attachments { id name } } attempt { id } } }`

// askedSource is one source of an answered attempt, as the API shows it.
type askedSource struct {
	Kind       string
	Available  bool
	Snippet    *string
	Attachment *struct{ ID, Name string }
}

// uploadReady uploads data as name into conv for token and returns the
// READY attachment's id.
func uploadReady(t *testing.T, h *servertest.Harness, token, conv, name, data string) string {
	t.Helper()
	status, out := multipartUpload(t, h.URL, token, conv, name, []byte(data))
	require.Equal(t, http.StatusOK, status, "%v", out)
	require.Nil(t, out["errors"], "%v", out)
	a := out["data"].(map[string]any)["uploadAttachment"].(map[string]any)["attachment"].(map[string]any)
	st, _ := settled(t, h.URL, token, a["id"].(string))
	require.Equal(t, "READY", st, "%v", a)
	return a["id"].(string)
}

// attemptSources waits for attempt a to end and returns its sources.
func attemptSources(t *testing.T, c *gqlclient.Client, a string) []askedSource {
	t.Helper()
	require.Equal(t, "COMPLETED", waitDone(t, c, a))
	var got struct {
		Attempt struct{ Sources []askedSource }
	}
	mustDo(t, c, `query($a: ID!) { attempt(id: $a) { sources { kind available snippet attachment { id name } } } }`,
		map[string]any{"a": a}, &got)
	return got.Attempt.Sources
}

// citesFact reports whether a source shows the attachment's fact.
func citesFact(srcs []askedSource) bool {
	for _, s := range srcs {
		if s.Snippet != nil && strings.Contains(*s.Snippet, "tourmaline") {
			return true
		}
	}
	return false
}

const zorblaxFact = "The Zorblax reactor in hangar nine runs on purple tourmaline crystals."

// TestAskWithAttachments: an ask naming a READY attachment of its
// conversation stores the link (Message.attachments) and its answer cites
// the attachment, kind ATTACHMENT with Source.attachment, even for a
// question the attachment does not resemble, and does not make the answer
// stale; a knowledge base source is kind DOCUMENT without an attachment.
// Its idempotency key replays only with the same attachments.
func TestAskWithAttachments(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		token := h.Token(t, "demo", "alice", []string{"member"})
		conv := createConversation(t, alice)
		att := uploadReady(t, h, token, conv, "zorblax.txt", zorblaxFact)

		var asked struct {
			Ask struct {
				UserMessage struct {
					ID          string
					Attachments []struct{ ID, Name string }
				}
				Attempt struct{ ID string }
			}
		}
		mustDo(t, alice, askWithAttachments, map[string]any{"c": conv, "k": "with-att", "q": "上传文件最大是多少？", "ids": []string{att, att}}, &asked)
		require.Equal(t, []struct{ ID, Name string }{{att, "zorblax.txt"}}, asked.Ask.UserMessage.Attachments)

		// The key replays with the same attachments, in any repetition, and
		// is IDEMPOTENCY_MISMATCH with other ones (none here).
		var again struct {
			Ask struct{ UserMessage struct{ ID string } }
		}
		mustDo(t, alice, askWithAttachments, map[string]any{"c": conv, "k": "with-att", "q": "上传文件最大是多少？", "ids": []string{att}}, &again)
		require.Equal(t, asked.Ask.UserMessage.ID, again.Ask.UserMessage.ID)
		code, _ := errorCode(t, alice, askWithAttachments, map[string]any{"c": conv, "k": "with-att", "q": "上传文件最大是多少？", "ids": []string{}})
		require.Equal(t, "IDEMPOTENCY_MISMATCH", code, "the key with other attachments")

		srcs := attemptSources(t, alice, asked.Ask.Attempt.ID)
		var attached, documents int
		for _, s := range srcs {
			switch s.Kind {
			case "ATTACHMENT":
				attached++
				require.True(t, s.Available)
				require.NotNil(t, s.Attachment)
				require.Equal(t, att, s.Attachment.ID)
				require.Equal(t, "zorblax.txt", s.Attachment.Name)
			case "DOCUMENT":
				documents++
				require.Nil(t, s.Attachment)
			default:
				t.Fatalf("source kind %q", s.Kind)
			}
		}
		require.Equal(t, 1, attached, "sources %+v", srcs)
		require.True(t, citesFact(srcs), "sources %+v", srcs)
		require.Positive(t, documents, "the knowledge base's evidence is kept: %+v", srcs)

		// An attachment never changes: its source does not make the answer stale.
		var stale struct {
			Attempt struct{ Staleness struct{ Stale bool } }
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { staleness { stale } } }`, map[string]any{"a": asked.Ask.Attempt.ID}, &stale)
		require.False(t, stale.Attempt.Staleness.Stale)

		// The link is read back through the attachment's policy.
		var msg struct {
			Node struct{ Attachments []struct{ ID string } }
		}
		mustDo(t, alice, `query($id: ID!) { node(id: $id) { ... on Message { attachments { id } } } }`,
			map[string]any{"id": asked.Ask.UserMessage.ID}, &msg)
		require.Len(t, msg.Node.Attachments, 1)
	})
}

// TestAskAttachmentProbes: an ask naming an attachment of another of the
// viewer's conversations, another user's, an unknown id, or one whose
// conversation was deleted is the exact error JSON of the unknown id,
// NOT_FOUND; one that is not READY is BAD_USER_INPUT naming attachmentIds
// with reason ATTACHMENT_NOT_READY. Nothing is written for any of them. A
// file of conversation A is never retrieved or cited by an ask in B, and
// never readable by another user.
func TestAskAttachmentProbes(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		aliceToken := h.Token(t, "demo", "alice", []string{"member"})
		bobToken := h.Token(t, "demo", "bob", []string{"member"})
		convA, convB, convGone := createConversation(t, alice), createConversation(t, alice), createConversation(t, alice)
		bobConv := createConversation(t, bob)
		inA := uploadReady(t, h, aliceToken, convA, "zorblax.txt", zorblaxFact)
		inGone := uploadReady(t, h, aliceToken, convGone, "gone.txt", zorblaxFact)
		bobs := uploadReady(t, h, bobToken, bobConv, "bob.txt", "Bob's notes.")
		mustDo(t, alice, `mutation($id: ID!) { deleteConversation(id: $id) { id } }`, map[string]any{"id": convGone}, nil)

		written := func(conv string) int {
			n, err := h.DB.Client.Message.Query().Where(message.ConversationID(uuid.MustParse(conv))).Count(sysCtx())
			require.NoError(t, err)
			return n
		}
		before := written(convB)
		unknown := rawErrors(t, alice, askWithAttachments, map[string]any{"c": convB, "k": "probe-unknown", "q": "q", "ids": []string{uuid.NewString()}})
		require.Len(t, unknown, 1)
		require.Contains(t, string(unknown[0]), `"NOT_FOUND"`)
		for name, id := range map[string]string{"another conversation's": inA, "another user's": bobs, "a deleted conversation's": inGone} {
			got := rawErrors(t, alice, askWithAttachments, map[string]any{"c": convB, "k": "probe-unknown", "q": "q", "ids": []string{id}})
			require.Len(t, got, 1, name)
			require.Equal(t, string(unknown[0]), string(got[0]), "%s attachment", name)
		}
		// Bob, asking in his own conversation with alice's file.
		got := rawErrors(t, bob, askWithAttachments, map[string]any{"c": bobConv, "k": "probe-unknown", "q": "q", "ids": []string{inA}})
		require.Len(t, got, 1)
		require.Equal(t, string(unknown[0]), string(got[0]))

		// Not READY: BAD_USER_INPUT naming the field.
		notReady := uploadReady(t, h, aliceToken, convB, "pending.txt", "Still being scanned.")
		allow := privacy.DecisionContext(context.Background(), privacy.Allow)
		require.NoError(t, h.DB.Client.Attachment.UpdateOneID(uuid.MustParse(notReady)).SetStatus(attachment.StatusSCANNING).Exec(allow))
		before = written(convB)
		r := do(t, alice, askWithAttachments, map[string]any{"c": convB, "k": "probe-pending", "q": "q", "ids": []string{notReady}})
		require.Len(t, r.Errors, 1, "%+v", r.Errors)
		ext := r.Errors[0].Extensions
		require.Equal(t, "BAD_USER_INPUT", ext["code"], "%+v", ext)
		require.Equal(t, "attachmentIds", ext["field"], "%+v", ext)
		require.Equal(t, "ATTACHMENT_NOT_READY", ext["reason"], "%+v", ext)
		require.Equal(t, before, written(convB), "a refused ask wrote a message")

		// Retrieval in B never cites A's file, even for its own question.
		var asked struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, askWithAttachments, map[string]any{"c": convB, "k": "ask-b", "q": "What does the Zorblax reactor in hangar nine run on?", "ids": nil}, &asked)
		srcs := attemptSources(t, alice, asked.Ask.Attempt.ID)
		require.False(t, citesFact(srcs), "B cites A's file: %+v", srcs)
		for _, s := range srcs {
			require.Nil(t, s.Attachment, "B's source %+v", s)
		}

		// Bob cannot read alice's file as a node: the unknown id's error.
		nodeErr := func(id string) string {
			errs := rawErrors(t, bob, `query($id: ID!) { node(id: $id) { id ... on Attachment { name } } }`, map[string]any{"id": id})
			require.Len(t, errs, 1)
			return string(errs[0])
		}
		require.Equal(t, nodeErr(uuid.NewString()), nodeErr(inA))
	})
}

// TestSharedAttachmentSourcesAreUnavailable: a share link of a
// conversation whose answer cites an attachment withholds that answer
// from another reader (they may not read the attachment), without its
// text, its sources, the file name or the file's text.
func TestSharedAttachmentSourcesAreUnavailable(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		token := h.Token(t, "demo", "alice", []string{"member"})
		conv := createConversation(t, alice)
		att := uploadReady(t, h, token, conv, "zorblax.txt", zorblaxFact)
		var asked struct {
			Ask struct{ Attempt struct{ ID string } }
		}
		mustDo(t, alice, askWithAttachments, map[string]any{"c": conv, "k": "share", "q": "What does the Zorblax reactor run on?", "ids": []string{att}}, &asked)
		require.True(t, citesFact(attemptSources(t, alice, asked.Ask.Attempt.ID)))
		var answer struct {
			Attempt struct{ AssistantMessage struct{ ID string } }
		}
		mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { assistantMessage { id } } }`, map[string]any{"a": asked.Ask.Attempt.ID}, &answer)
		var link struct {
			CreateShareLink struct{ Token string }
		}
		mustDo(t, alice, `mutation($c: ID!, $m: ID!) { createShareLink(input: {conversationId: $c, upToMessageId: $m, audience: TENANT}) { token } }`,
			map[string]any{"c": conv, "m": answer.Attempt.AssistantMessage.ID}, &link)
		var shared struct {
			SharedConversation struct {
				Messages []struct {
					Role, Content string
					Withheld      bool
					Sources       []struct {
						Available      bool
						Title, Snippet *string
					}
				}
			}
		}
		r, err := bob.Do(ctxT(t), `query($t: String!) { sharedConversation(token: $t) { messages { role content withheld
			sources { available title snippet } } } }`, map[string]any{"t": link.CreateShareLink.Token})
		require.NoError(t, err)
		require.Empty(t, r.Errors)
		require.NoError(t, json.Unmarshal(r.Data, &shared))
		require.Len(t, shared.SharedConversation.Messages, 2)
		raw, _ := json.Marshal(shared.SharedConversation.Messages[1])
		require.NotContains(t, strings.ToLower(string(raw)), "tourmaline")
		require.NotContains(t, strings.ToLower(string(raw)), "zorblax")
		require.True(t, shared.SharedConversation.Messages[1].Withheld, "the answer built from the attachment is withheld")
	})
}
