package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// roomyLimits lets the generated every-field documents through the shape
// limits, which are tested elsewhere.
func roomyLimits(c *config.Config) {
	c.Limits.MaxDepth = 100
	c.Limits.MaxAliases = 10000
	c.Limits.MaxComplexity = 1 << 30
}

// restrictedRoots are the root query fields that only some roles may call.
// They refuse the whole field (FORBIDDEN) for other roles, and no other
// field may depend on the viewer's role (docs/API.md, "Admin
// diagnostics"). A new root field must be added here or to memberRootArgs.
var restrictedRoots = map[string]string{
	"adminConversations":       "admin",
	"feedbacks":                "admin",
	"feedbackSummary":          "admin",
	"usageSummary":             "admin",
	"usageCosts":               "admin",
	"attemptDiagnostics":       "admin",
	"tenantSettings":           "admin",
	"documentAcl":              "curator",
	"auditEvents":              "admin",
	"adminSearchConversations": "admin",
	"modelProfiles":            "admin",
	"modelEndpoints":           "admin",
}

// memberRootArgs gives the root query fields that take required arguments
// their arguments for the member test.
var memberRootArgs = map[string]string{
	"conversation":           "(id: $conversation)",
	"attempt":                "(id: $attempt)",
	"node":                   "(id: $attempt)",
	"nodes":                  "(ids: $nodes)",
	"exportConversation":     "(id: $conversation, format: MARKDOWN)",
	"searchConversations":    "(query: \"上传 upload\")",
	"sharedConversation":     "(token: $token)",
	"shareRestrictedAnswers": "(input: {conversationId: $conversation, upToMessageId: $message, audience: TENANT})",
}

// memberWorld is what alice (a member) owns after memberSetup: a
// conversation with a completed attempt, its sources, her feedback and a
// retry, and the ids of rows of every type she can see.
type memberWorld struct {
	alice        *gqlclient.Client
	conversation string
	attempt      string
	nodes        []string
	// shareToken opens a TENANT share link of the conversation.
	shareToken string
	// message is the attempt's answer.
	message string
}

func memberSetup(t *testing.T, h *servertest.Harness) memberWorld {
	t.Helper()
	alice := h.Client(t, "alice")
	conv := createConversation(t, alice)
	att := ask(t, alice, conv, "上传文件最大是多少？")
	waitDone(t, alice, att)
	mustDo(t, alice, `mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: DOWN, reasons: [OUTDATED, CITATION_WRONG], comment: "old"}) { id } }`,
		map[string]any{"a": att}, nil)
	var retry struct {
		RetryAttempt struct{ Attempt struct{ ID string } }
	}
	mustDo(t, alice, `mutation($a: ID!) { retryAttempt(input: {attemptId: $a, clientRequestId: "again"}) { attempt { id } } }`,
		map[string]any{"a": att}, &retry)
	waitDone(t, alice, retry.RetryAttempt.Attempt.ID)

	var ids struct {
		Attempt struct {
			ID, ConversationID, UserMessageID string
			AssistantMessage                  struct{ ID string }
			Sources                           []struct{ ID string }
			Feedback                          []struct{ ID string }
			Conversation                      struct {
				KnowledgeBase struct {
					ID        string
					Documents struct {
						Edges []struct{ Node struct{ ID string } }
					}
				}
			}
		}
	}
	mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { id conversationId userMessageId assistantMessage { id }
		sources { id } feedback { id } conversation { knowledgeBase { id documents(first: 1) { edges { node { id } } } } } } }`,
		map[string]any{"a": att}, &ids)
	a := ids.Attempt
	if len(a.Sources) == 0 || len(a.Feedback) == 0 || len(a.Conversation.KnowledgeBase.Documents.Edges) == 0 {
		t.Fatalf("setup lacks a row type: %+v", a)
	}
	nodes := []string{a.ID, a.ConversationID, a.UserMessageID, a.AssistantMessage.ID, a.Sources[0].ID,
		a.Feedback[0].ID, a.Conversation.KnowledgeBase.ID, a.Conversation.KnowledgeBase.Documents.Edges[0].Node.ID,
		retry.RetryAttempt.Attempt.ID}
	var share struct{ CreateShareLink struct{ Token string } }
	mustDo(t, alice, `mutation($c: ID!, $m: ID!) { createShareLink(input: {conversationId: $c, upToMessageId: $m, audience: TENANT}) { token } }`,
		map[string]any{"c": conv, "m": a.AssistantMessage.ID}, &share)
	return memberWorld{alice: alice, conversation: conv, attempt: att, nodes: nodes, shareToken: share.CreateShareLink.Token,
		message: a.AssistantMessage.ID}
}

// TestMemberQueriesNeverFailOnARole selects every field of every type a
// member can reach, from every root query field and both subscriptions,
// generated from the introspected schema: no error may come back. A field
// that answers FORBIDDEN for a member's role makes Apollo's default error
// policy drop the whole response (contextManifest, timings and
// Document.acl did).
func TestMemberQueriesNeverFailOnARole(t *testing.T) {
	h := start(t, servertest.Options{Config: roomyLimits})
	w := memberSetup(t, h)
	s := introspect(t, w.alice)

	var roots []string
	for _, f := range s.Types["Query"].Fields {
		if _, ok := restrictedRoots[f.Name]; ok {
			continue
		}
		args, ok := memberRootArgs[f.Name]
		if !ok {
			for _, a := range f.Args {
				if a.Type.required() && a.DefaultValue == nil {
					t.Fatalf("root field %s takes required arguments: add it to memberRootArgs or restrictedRoots", f.Name)
				}
			}
		}
		sel := ""
		if k := f.Type.named().Kind; k == "OBJECT" || k == "INTERFACE" || k == "UNION" {
			sel = " " + s.selectAll(f.Type.named().Name)
		}
		roots = append(roots, f.Name+args+sel)
	}
	sort.Strings(roots)
	// One operation per root field: each stays under the document's
	// selection budget, and each is what one screen of a client asks.
	vars := map[string]any{"conversation": w.conversation, "attempt": w.attempt, "nodes": w.nodes, "token": w.shareToken, "message": w.message}
	var data strings.Builder
	decls := map[string]string{"conversation": "$conversation: ID!", "attempt": "$attempt: ID!", "nodes": "$nodes: [ID!]!", "token": "$token: String!", "message": "$message: ID!"}
	for _, root := range roots {
		var used []string
		opVars := map[string]any{}
		for _, name := range []string{"conversation", "attempt", "nodes", "token", "message"} {
			if strings.Contains(root, "$"+name) {
				used = append(used, decls[name])
				opVars[name] = vars[name]
			}
		}
		query := "query { " + root + " }"
		if len(used) > 0 {
			query = "query(" + strings.Join(used, ", ") + ") { " + root + " }"
		}
		r, err := w.alice.Do(ctxT(t), query, opVars)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Errors) > 0 {
			t.Fatalf("a member's every-field query failed: %s: %+v", strings.SplitN(root, " ", 2)[0], r.Errors)
		}
		data.Write(r.Data)
	}
	for _, want := range []string{`"reasonCodes":["OUTDATED","CITATION_WRONG"]`, `"available":true`, `"sourceUri":`} {
		if !strings.Contains(data.String(), want) {
			t.Errorf("the responses lack %s", want)
		}
	}
	if len(roots) < 6 {
		t.Fatalf("only %d root fields queried", len(roots))
	}

	t.Run("attemptEvents", func(t *testing.T) {
		q := "subscription($a: ID!) { attemptEvents(attemptId: $a) " + s.selectAll("AttemptEvent") + " }"
		sub, err := w.alice.SubscribeSSE(ctxT(t), q, map[string]any{"a": w.attempt})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := sub.Collect(ctxT(t))
		if err != nil {
			t.Fatalf("replay ended with %v", err)
		}
		if len(rs) < 3 {
			t.Fatalf("replay of %d events", len(rs))
		}
		for _, r := range rs {
			if len(r.Errors) > 0 {
				t.Fatalf("event errors: %+v", r.Errors)
			}
		}
	})
	t.Run("conversationEvents", func(t *testing.T) {
		q := "subscription($c: ID!) { conversationEvents(conversationId: $c) " + s.selectAll("ConversationEvent") + " }"
		ctx, cancel := context.WithCancel(ctxT(t))
		defer cancel()
		sub, err := w.alice.SubscribeSSE(ctx, q, map[string]any{"c": w.conversation})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Stop()
		// The first event, SUBSCRIBED, says the stream is live; a rename
		// then makes the next.
		for i, kind := range []string{"SUBSCRIBED", "CONVERSATION_UPDATED"} {
			if i == 1 {
				mustDo(t, w.alice, `mutation($c: ID!, $t: String!) { renameConversation(id: $c, title: $t) { id } }`,
					map[string]any{"c": w.conversation, "t": "renamed"}, nil)
			}
			next, stop := context.WithTimeout(ctx, 20*time.Second)
			r, err := sub.Next(next)
			stop()
			if err != nil {
				t.Fatalf("no %s event: %v", kind, err)
			}
			if len(r.Errors) > 0 || !strings.Contains(string(r.Data), `"`+kind+`"`) {
				t.Fatalf("event %s errors %+v, want %s", r.Data, r.Errors, kind)
			}
		}
	})
}

// TestRestrictedEntryPointsRefuseAsAWholeField checks the admin and
// curator entry points: the role gets the data, everyone else a single
// FORBIDDEN error at the field's own path.
func TestRestrictedEntryPointsRefuseAsAWholeField(t *testing.T) {
	h := start(t, servertest.Options{})
	w := memberSetup(t, h)
	admin := h.Client(t, "root", "admin")
	agent := h.Client(t, "carol", "agent")
	doc := w.nodes[7]

	diag := `query($a: ID!) { attemptDiagnostics(id: $a) { attemptId status contextManifest { chunkIds budget tokens { total } }
		timings { startedAt completedAt durationMs timeToFirstTokenMs } leaseOwner leaseExpiresAt } }`
	var d struct {
		AttemptDiagnostics struct {
			AttemptID, Status string
			ContextManifest   *struct{ ChunkIds []string }
			Timings           struct{ DurationMs *int }
			LeaseOwner        *string
		}
	}
	mustDo(t, admin, diag, map[string]any{"a": w.attempt}, &d)
	if g := d.AttemptDiagnostics; g.AttemptID != w.attempt || g.Status != "COMPLETED" || g.ContextManifest == nil ||
		len(g.ContextManifest.ChunkIds) == 0 || g.Timings.DurationMs == nil || g.LeaseOwner != nil {
		t.Errorf("admin diagnostics %+v", g)
	}
	acl := `query($d: ID!) { documentAcl(documentId: $d) { visibility groups users } }`
	var a struct {
		DocumentACL struct{ Visibility string } `json:"documentAcl"`
	}
	mustDo(t, agent, acl, map[string]any{"d": doc}, &a)
	if a.DocumentACL.Visibility == "" {
		t.Errorf("curator acl %+v", a)
	}

	cases := []struct {
		name   string
		client *gqlclient.Client
		query  string
		vars   map[string]any
		field  string
	}{
		{"member diagnostics", w.alice, diag, map[string]any{"a": w.attempt}, "attemptDiagnostics"},
		{"agent diagnostics", agent, diag, map[string]any{"a": w.attempt}, "attemptDiagnostics"},
		{"member acl", w.alice, acl, map[string]any{"d": doc}, "documentAcl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.client.Do(ctxT(t), tc.query, tc.vars)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Errors) != 1 || r.Errors[0].Code() != "FORBIDDEN" || len(r.Errors[0].Path) != 1 || r.Errors[0].Path[0] != tc.field {
				t.Fatalf("errors %+v, want one FORBIDDEN at [%s]", r.Errors, tc.field)
			}
		})
	}
	t.Run("deleted conversation", func(t *testing.T) {
		mustDo(t, w.alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": w.conversation}, nil)
		if code, _ := errorCode(t, admin, diag, map[string]any{"a": w.attempt}); code != "NOT_FOUND" {
			t.Fatalf("diagnostics of a deleted conversation's attempt: %s", code)
		}
	})
}

// TestFeedbackReasonCodesAreTheEnum checks that Feedback.reasonCodes is
// typed like the input (a list of FeedbackReason), so that generated
// clients keep the enum, and that it answers the submitted reasons.
func TestFeedbackReasonCodesAreTheEnum(t *testing.T) {
	h := start(t, servertest.Options{})
	w := memberSetup(t, h)
	s := introspect(t, w.alice)
	ty := s.field(t, "Feedback", "reasonCodes").Type
	if ty.Kind != "LIST" || ty.OfType == nil || !ty.OfType.required() || ty.named().Kind != "ENUM" || ty.named().Name != "FeedbackReason" {
		t.Fatalf("Feedback.reasonCodes is %+v, want [FeedbackReason!]", ty)
	}
	if in := s.field(t, "Mutation", "submitFeedback"); in.Args[0].Type.named().Name != "SubmitFeedbackInput" {
		t.Fatalf("submitFeedback takes %+v", in.Args)
	}
	var out struct {
		SubmitFeedback struct{ ReasonCodes []string }
	}
	mustDo(t, w.alice, `mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: DOWN, reasons: [INCOMPLETE, UNSAFE]}) { reasonCodes } }`,
		map[string]any{"a": w.attempt}, &out)
	if got := strings.Join(out.SubmitFeedback.ReasonCodes, ","); got != "INCOMPLETE,UNSAFE" {
		t.Fatalf("reasonCodes %q", got)
	}
}

// mutationCase runs one mutation of TestMutationPayloadsSelectEveryField
// with valid input as the role that may run it.
type mutationCase struct {
	name string
	as   func(st *payloadState) *gqlclient.Client
	args func(st *payloadState) (string, map[string]any)
	// keep records ids of the result for later cases.
	keep func(st *payloadState, data map[string]any)
	// upload, for a mutation that takes an Upload as $file, is the file
	// to send by the multipart request spec (as alice).
	upload func(st *payloadState) (name string, data []byte)
}

// payloadState carries ids between the cases.
type payloadState struct {
	alice, curator, support, admin             *gqlclient.Client
	conversation, attempt, retry, kb, document string
	grant, deniedGrant                         string
	tag, folder                                string // organising conversations
	question                                   string // the asked question's message
	shareLink                                  string
	modelProfile                               string
	h                                          *servertest.Harness
}

func str(v any, path ...string) string {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

var mutationCases = []mutationCase{
	{name: "createConversation",
		args: func(*payloadState) (string, map[string]any) { return "(input: {title: \"Payloads\"})", nil },
		keep: func(st *payloadState, d map[string]any) { st.conversation = str(d, "id") }},
	{name: "renameConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, title: \"Renamed\")", map[string]any{"id": st.conversation}
		}},
	{name: "pinConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id)", map[string]any{"id": st.conversation}
		}},
	{name: "unpinConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id)", map[string]any{"id": st.conversation}
		}},
	{name: "keepConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id)", map[string]any{"id": st.conversation}
		}},
	{name: "createTag",
		args: func(*payloadState) (string, map[string]any) {
			return "(input: {name: \"Payloads\", color: \"#336699\"})", nil
		},
		keep: func(st *payloadState, d map[string]any) { st.tag = str(d, "id") }},
	{name: "updateTag",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, input: {name: \"Payloads 2\"})", map[string]any{"id": st.tag}
		}},
	{name: "setConversationTags",
		args: func(st *payloadState) (string, map[string]any) {
			return fmt.Sprintf("(conversationId: $id, tagIds: [%q])", st.tag), map[string]any{"id": st.conversation}
		}},
	{name: "removeConversationTags",
		args: func(st *payloadState) (string, map[string]any) {
			return fmt.Sprintf("(conversationId: $id, tagIds: [%q])", st.tag), map[string]any{"id": st.conversation}
		}},
	{name: "addConversationTags",
		args: func(st *payloadState) (string, map[string]any) {
			return fmt.Sprintf("(conversationId: $id, tagIds: [%q])", st.tag), map[string]any{"id": st.conversation}
		}},
	{name: "createFolder",
		args: func(*payloadState) (string, map[string]any) { return "(input: {name: \"Payloads\"})", nil },
		keep: func(st *payloadState, d map[string]any) { st.folder = str(d, "id") }},
	{name: "updateFolder",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, input: {name: \"Payloads 2\", position: 3})", map[string]any{"id": st.folder}
		}},
	{name: "moveConversationToFolder",
		args: func(st *payloadState) (string, map[string]any) {
			return fmt.Sprintf("(conversationId: $id, folderId: %q)", st.folder), map[string]any{"id": st.conversation}
		}},
	{name: "updateConversationMetadata",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, metadata: [{key: \"crm\", value: \"42\"}])", map[string]any{"id": st.conversation}
		}},
	{name: "deleteFolder",
		args: func(st *payloadState) (string, map[string]any) { return "(id: $id)", map[string]any{"id": st.folder} }},
	{name: "deleteTag",
		args: func(st *payloadState) (string, map[string]any) { return "(id: $id)", map[string]any{"id": st.tag} }},
	{name: "ask",
		args: func(st *payloadState) (string, map[string]any) {
			return "(input: {conversationId: $id, clientMessageId: \"payload-1\", question: \"上传文件最大是多少？\"})", map[string]any{"id": st.conversation}
		},
		keep: func(st *payloadState, d map[string]any) {
			st.attempt, st.question = str(d, "attempt", "id"), str(d, "userMessage", "id")
		}},
	{name: "submitFeedback",
		args: func(st *payloadState) (string, map[string]any) {
			return "(input: {attemptId: $id, rating: DOWN, reasons: [OUTDATED], comment: \"stale\"})", map[string]any{"id": st.attempt}
		}},
	{name: "retryAttempt",
		args: func(st *payloadState) (string, map[string]any) {
			return "(input: {attemptId: $id, clientRequestId: \"payload-retry\"})", map[string]any{"id": st.attempt}
		},
		keep: func(st *payloadState, d map[string]any) { st.retry = str(d, "attempt", "id") }},
	{name: "cancelAttempt",
		args: func(st *payloadState) (string, map[string]any) { return "(id: $id)", map[string]any{"id": st.retry} }},
	{name: "editMessage",
		args: func(st *payloadState) (string, map[string]any) {
			return "(messageId: $id, question: \"单个文件的上传上限是多少？\", clientMessageId: \"payload-edit\")", map[string]any{"id": st.question}
		}},
	{name: "reaskAttempt",
		args: func(st *payloadState) (string, map[string]any) {
			return "(attemptId: $id, clientRequestId: \"payload-reask\")", map[string]any{"id": st.attempt}
		}},
	{name: "selectBranch",
		args: func(st *payloadState) (string, map[string]any) {
			return "(conversationId: \"" + st.conversation + "\", messageId: $id)", map[string]any{"id": st.question}
		}},
	{name: "forkConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(messageId: $id, clientRequestId: \"payload-fork\")", map[string]any{"id": st.question}
		}},
	{name: "uploadAttachment",
		args: func(st *payloadState) (string, map[string]any) {
			return "(conversationId: $id, file: $file)", map[string]any{"id": st.conversation}
		},
		upload: func(*payloadState) (string, []byte) { return "payload.txt", []byte("payload text") }},
	{name: "createShareLink",
		args: func(st *payloadState) (string, map[string]any) {
			return "(input: {conversationId: \"" + st.conversation + "\", upToMessageId: $id, audience: USERS, users: [\"bob\"], expiresAt: \"2099-01-01T00:00:00Z\"})", map[string]any{"id": st.question}
		},
		keep: func(st *payloadState, d map[string]any) { st.shareLink = str(d, "shareLink", "id") }},
	{name: "updateShareLink",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, input: {audience: TENANT, clearExpiresAt: true})", map[string]any{"id": st.shareLink}
		}},
	{name: "revokeShareLink",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id)", map[string]any{"id": st.shareLink}
		}},
	{name: "importConversations",
		args: func(*payloadState) (string, map[string]any) {
			return `(input: {format: CHATGPT, clientRequestId: "payload-import", content: ` + strconv.Quote(payloadImport) + `})`, nil
		}},
	{name: "requestSupportAccess", as: supportAgent,
		args: func(st *payloadState) (string, map[string]any) {
			return "(conversationId: $id, reason: \"ticket 1\", duration: \"2h\")", map[string]any{"id": st.conversation}
		},
		keep: func(st *payloadState, d map[string]any) { st.grant = str(d, "id") }},
	{name: "approveSupportAccess",
		args: func(st *payloadState) (string, map[string]any) { return "(id: $id)", map[string]any{"id": st.grant} }},
	{name: "revokeSupportAccess",
		args: func(st *payloadState) (string, map[string]any) { return "(id: $id)", map[string]any{"id": st.grant} }},
	{name: "requestSupportAccess", as: supportAgent,
		args: func(st *payloadState) (string, map[string]any) {
			return "(conversationId: $id, reason: \"ticket 2\")", map[string]any{"id": st.conversation}
		},
		keep: func(st *payloadState, d map[string]any) { st.deniedGrant = str(d, "id") }},
	{name: "denySupportAccess",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, reason: \"not now\")", map[string]any{"id": st.deniedGrant}
		}},
	{name: "archiveConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id)", map[string]any{"id": st.conversation}
		}},
	{name: "unarchiveConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, expectedVersion: null)", map[string]any{"id": st.conversation}
		}},
	{name: "setConversationHistoryStrategy",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, historyStrategy: \"PRIORITIZED\")", map[string]any{"id": st.conversation}
		}},
	{name: "updateTenantSettings", as: tenantAdmin,
		args: func(*payloadState) (string, map[string]any) {
			return "(input: {historyRounds: 6, budgetRatios: {history: 0.3}, modelContextWindows: [{model: \"m\", contextWindow: 4096}]})", nil
		}},
	{name: "deleteConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, reason: \"test\")", map[string]any{"id": st.conversation}
		}},
	{name: "restoreConversation",
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id)", map[string]any{"id": st.conversation}
		}},
	{name: "createKnowledgeBase", as: curator,
		args: func(*payloadState) (string, map[string]any) {
			return "(input: {name: \"Payloads\", description: \"every field\"})", nil
		},
		keep: func(st *payloadState, d map[string]any) { st.kb = str(d, "id") }},
	{name: "ingestDocument", as: curator,
		args: func(st *payloadState) (string, map[string]any) {
			return "(input: {knowledgeBaseId: $id, title: \"Quota\", sourceUri: \"kb://quota\", content: \"# Quota\\n\\nSeven widgets a day.\", acl: {visibility: RESTRICTED, groups: [\"ops\"]}})",
				map[string]any{"id": st.kb}
		},
		keep: func(st *payloadState, d map[string]any) { st.document = str(d, "id") }},
	{name: "setDocumentAcl", as: curator,
		args: func(st *payloadState) (string, map[string]any) {
			return "(documentId: $id, acl: {visibility: RESTRICTED, groups: [\"sre\"], users: [\"alice\"]})", map[string]any{"id": st.document}
		}},
	{name: "deleteDocument", as: curator,
		args: func(st *payloadState) (string, map[string]any) {
			return "(documentId: $id, reason: \"test\")", map[string]any{"id": st.document}
		}},
	{name: "createModelProfile", as: tenantAdmin,
		args: func(*payloadState) (string, map[string]any) {
			return "(input: {name: \"Payloads\", endpoint: \"offline\", model: \"m\", contextWindow: 8192, priceInputPerM: 150000, priceOutputPerM: 600000, allowedGroups: [\"ops\"]})", nil
		},
		keep: func(st *payloadState, d map[string]any) { st.modelProfile = str(d, "id") }},
	{name: "updateModelProfile", as: tenantAdmin,
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id, input: {temperatureMax: 1.5, isDefault: true})", map[string]any{"id": st.modelProfile}
		}},
	{name: "deleteModelProfile", as: tenantAdmin,
		args: func(st *payloadState) (string, map[string]any) {
			return "(id: $id)", map[string]any{"id": st.modelProfile}
		}},
	{name: "grantUsage", as: tenantAdmin,
		args: func(*payloadState) (string, map[string]any) {
			return "(input: {userId: \"alice\", tokens: 5000, note: \"payloads\"})", nil
		}},
	{name: "setUserQuota", as: tenantAdmin,
		args: func(*payloadState) (string, map[string]any) {
			return "(userId: \"alice\", tokens: 100000)", nil
		}},
}

func curator(st *payloadState) *gqlclient.Client { return st.curator }

func supportAgent(st *payloadState) *gqlclient.Client { return st.support }

func tenantAdmin(st *payloadState) *gqlclient.Client { return st.admin }

// TestMutationPayloadsSelectEveryField runs every mutation of the schema
// with valid input as the role that may run it, selecting every field of
// its payload (generated from the introspected schema, recursively), on
// both backends: none may answer an error. setDocumentAcl and
// ingestDocument answered INTERNAL when the selection reached an edge,
// because the document they returned was bound to a finished transaction.
// A new mutation fails the test until it gets a case here.
func TestMutationPayloadsSelectEveryField(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			h := servertest.Start(t, b, servertest.Options{Config: roomyLimits})
			st := &payloadState{h: h, alice: h.Client(t, "alice"), curator: h.Client(t, "carol", "agent"), support: h.Client(t, "sam", "support"), admin: h.Client(t, "root", "admin")}
			s := introspect(t, st.alice)

			known := map[string]bool{}
			for _, c := range mutationCases {
				known[c.name] = true
			}
			for _, f := range s.Types["Mutation"].Fields {
				if !known[f.Name] {
					t.Errorf("mutation %s has no case in mutationCases: add one with valid input", f.Name)
				}
			}
			for _, c := range mutationCases {
				f := s.field(t, "Mutation", c.name)
				client := st.alice
				if c.as != nil {
					client = c.as(st)
				}
				args, vars := c.args(st)
				decl := ""
				if vars != nil {
					decl = "($id: ID!)"
				}
				sel := ""
				if k := f.Type.named().Kind; k == "OBJECT" || k == "INTERFACE" || k == "UNION" {
					sel = " " + s.selectAll(f.Type.named().Name)
				}
				if c.upload != nil {
					name, file := c.upload(st)
					_, out := multipartDo(t, h.URL, h.Token(t, "demo", "alice", []string{"member"}),
						"mutation($id: ID!, $file: Upload!) { "+c.name+args+sel+" }", vars, "file", name, file)
					if out["errors"] != nil || out["data"] == nil {
						t.Fatalf("%s answered %v", c.name, out)
					}
					continue
				}
				r, err := client.Do(ctxT(t), "mutation"+decl+" { "+c.name+args+sel+" }", vars)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if len(r.Errors) > 0 {
					t.Fatalf("%s answered errors: %+v", c.name, r.Errors)
				}
				var data map[string]map[string]any
				if err := json.Unmarshal(r.Data, &data); err != nil || data[c.name] == nil {
					t.Fatalf("%s: no data: %s", c.name, r.Data)
				}
				if c.keep != nil {
					c.keep(st, data[c.name])
				}
				if c.name == "ask" || c.name == "retryAttempt" || c.name == "editMessage" || c.name == "reaskAttempt" {
					waitDone(t, st.alice, str(data[c.name], "attempt", "id"))
				}
			}
		})
	}
}

// payloadImport is a ChatGPT conversation of one question and its answer.
const payloadImport = `[{"title": "Imported", "create_time": 1700000000, "current_node": "a",
  "mapping": {"q": {"id": "q", "message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["Hello?"]}, "create_time": 1700000001}, "parent": null, "children": ["a"]},
              "a": {"id": "a", "message": {"author": {"role": "assistant"}, "content": {"content_type": "text", "parts": ["Hi."]}, "create_time": 1700000002}, "parent": "q", "children": []}}}]`
