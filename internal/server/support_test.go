package server_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/supportgrant"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// Delegated support access through the API (docs/API.md, "Delegated
// support access"), on both backends.

const (
	requestGrant = `mutation($c: ID!, $d: String) { requestSupportAccess(conversationId: $c, reason: "ticket 42", duration: $d) { id status state durationSeconds agentId conversationOwnerId } }`
	approveGrant = `mutation($g: ID!) { approveSupportAccess(id: $g) { id status state } }`
	denyGrant    = `mutation($g: ID!) { denySupportAccess(id: $g, reason: "no") { id status } }`
	revokeGrant  = `mutation($g: ID!) { revokeSupportAccess(id: $g) { id status state } }`
	grantNode    = `query($g: ID!) { node(id: $g) { id ... on SupportGrant { status } } }`
	// readUnderGrant reads a conversation's content: the conversation, its
	// messages, its attempts and their sources.
	readUnderGrant = `query($c: ID!) { conversation(id: $c) { title messages(first: 20) { edges { node { content } } }
		attempts(first: 10) { edges { node { answer sources { label } } } } } }`
)

type grantOut struct {
	ID, Status, State, AgentID, ConversationOwnerID string
	DurationSeconds                                 int
}

// request files a support request as c and returns the grant.
func request(t *testing.T, c *gqlclient.Client, conv string, duration any) grantOut {
	t.Helper()
	var out struct{ RequestSupportAccess grantOut }
	mustDo(t, c, requestGrant, map[string]any{"c": conv, "d": duration}, &out)
	return out.RequestSupportAccess
}

// decide runs one of the grant mutations and returns the grant.
func decide(t *testing.T, c *gqlclient.Client, mutation, grant string) grantOut {
	t.Helper()
	var out map[string]grantOut
	mustDo(t, c, mutation, map[string]any{"g": grant}, &out)
	for _, g := range out {
		return g
	}
	t.Fatalf("no payload")
	return grantOut{}
}

// sameAsRandom asserts that query with id answers exactly the errors the
// same query answers for a random id, and that those are NOT_FOUND.
func sameAsRandom(t *testing.T, c *gqlclient.Client, query, key, id string, extra map[string]any) {
	t.Helper()
	vars := func(v string) map[string]any {
		m := map[string]any{key: v}
		for k, x := range extra {
			m[k] = x
		}
		return m
	}
	random := rawErrors(t, c, query, vars(uuid.NewString()))
	if len(random) != 1 || !bytes.Contains(random[0], []byte(`"NOT_FOUND"`)) {
		t.Fatalf("%s with a random id: %s", query, jsonList(random))
	}
	got := rawErrors(t, c, query, vars(id))
	if len(got) != 1 || !bytes.Equal(got[0], random[0]) {
		t.Errorf("%s with %s:\n got  %s\n want %s", query, id, jsonList(got), random[0])
	}
}

// supportReads counts the support-read audit events of each conversation
// and the grants they name.
func supportReads(t *testing.T, h *servertest.Harness) (map[string]int, map[string]string) {
	t.Helper()
	evs, err := h.DB.Client.AuditEvent.Query().Where(auditevent.Action("conversation.support_read")).All(sysCtx())
	if err != nil {
		t.Fatal(err)
	}
	n, grants := map[string]int{}, map[string]string{}
	for _, e := range evs {
		n[e.TargetID]++
		grants[e.TargetID] = e.Metadata["grant"]
	}
	return n, grants
}

// TestSupportGrantLifecycle: a support agent without a grant sees nothing;
// a PENDING request opens nothing; the owner approves; the agent then
// reads the conversation's messages, attempts and sources, each operation
// writing one support-read audit event naming the grant; every write and
// every live stream under the grant is refused; a revoke ends access at
// once.
func TestSupportGrantLifecycle(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, sam, root := h.Client(t, "alice"), h.Client(t, "sam", "support"), h.Client(t, "root", "admin")
		rows := answered(t, alice, "上传文件最大是多少？", true)
		conv := rows.Conversation

		reads := func(t *testing.T) {
			t.Helper()
			sameAsRandom(t, sam, readUnderGrant, "c", conv, nil)
			sameAsRandom(t, sam, `query($a: ID!) { attempt(id: $a) { answer } }`, "a", rows.Attempt, nil)
			for kind, id := range rows.ids() {
				if kind == "feedback" {
					continue
				}
				sameAsRandom(t, sam, `query($id: ID!) { node(id: $id) { id } }`, "id", id, nil)
			}
		}
		t.Run("no grant, nothing visible", reads)

		g := request(t, sam, conv, nil)
		if g.Status != "PENDING" || g.State != "PENDING" || g.DurationSeconds != 24*3600 || g.AgentID != "sam" || g.ConversationOwnerID != "alice" {
			t.Fatalf("request: %+v", g)
		}
		t.Run("pending grant, nothing visible", reads)

		// Under the default OWNER policy an admin may not approve, and
		// another member cannot see the grant at all.
		if code, _ := errorCode(t, root, approveGrant, map[string]any{"g": g.ID}); code != "FORBIDDEN" {
			t.Errorf("admin approve under OWNER: %s", code)
		}
		sameAsRandom(t, h.Client(t, "bob"), approveGrant, "g", g.ID, nil)

		// The owner sees the request on the conversation and in her list.
		var listed struct {
			Conversation struct {
				SupportGrants []struct{ ID, State, Reason string }
			}
			SupportGrants struct{ TotalCount int }
		}
		mustDo(t, alice, `query($c: ID!) { conversation(id: $c) { supportGrants { id state reason } } supportGrants { totalCount } }`,
			map[string]any{"c": conv}, &listed)
		if len(listed.Conversation.SupportGrants) != 1 || listed.Conversation.SupportGrants[0].ID != g.ID ||
			listed.Conversation.SupportGrants[0].Reason != "ticket 42" || listed.SupportGrants.TotalCount != 1 {
			t.Fatalf("owner's list: %+v", listed)
		}

		if a := decide(t, alice, approveGrant, g.ID); a.Status != "APPROVED" || a.State != "APPROVED" {
			t.Fatalf("approve: %+v", a)
		}
		// A decided grant cannot be decided again.
		if code, _ := errorCode(t, alice, denyGrant, map[string]any{"g": g.ID}); code != "CONFLICT" {
			t.Errorf("deny after approve: %s", code)
		}

		before, _ := supportReads(t, h)
		var got struct {
			Conversation struct {
				Title    string
				Messages struct {
					Edges []struct{ Node struct{ Content string } }
				}
				Attempts struct {
					Edges []struct {
						Node struct {
							Answer  string
							Sources []struct{ Label string }
						}
					}
				}
			}
		}
		mustDo(t, sam, readUnderGrant, map[string]any{"c": conv}, &got)
		if len(got.Conversation.Messages.Edges) != 2 || len(got.Conversation.Attempts.Edges) != 1 ||
			len(got.Conversation.Attempts.Edges[0].Node.Sources) == 0 || got.Conversation.Attempts.Edges[0].Node.Answer == "" {
			t.Fatalf("read under the grant: %+v", got)
		}
		mustDo(t, sam, `query($a: ID!) { attempt(id: $a) { answer userMessage { content } } }`, map[string]any{"a": rows.Attempt}, nil)
		after, grants := supportReads(t, h)
		if after[conv]-before[conv] != 2 || grants[conv] != g.ID {
			t.Fatalf("support reads audited %d times (want one per operation, 2), grant %q (want %s)", after[conv]-before[conv], grants[conv], g.ID)
		}
		// Feedback is not in the grant's scope.
		sameAsRandom(t, sam, `query($id: ID!) { node(id: $id) { id } }`, "id", rows.Feedback[0], nil)

		t.Run("no live streams under a grant", func(t *testing.T) {
			// A stream would outlive a revoke, so grants open none.
			for _, sub := range []struct{ query, key, id string }{
				{servertest.AttemptEventsQuery, "a", rows.Attempt},
				{`subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }`, "c", conv},
			} {
				codes, data := subscriptionErrors(t, sam, sub.query, map[string]any{sub.key: sub.id})
				random, _ := subscriptionErrors(t, sam, sub.query, map[string]any{sub.key: uuid.NewString()})
				if data || len(codes) != 1 || codes[0] != "NOT_FOUND" || len(random) != 1 || random[0] != codes[0] {
					t.Errorf("%s: codes %v (random id: %v), data %v", sub.query, codes, random, data)
				}
			}
		})

		t.Run("writes under the grant are refused", func(t *testing.T) {
			writes := []struct{ query, key, id string }{
				{`mutation($c: ID!) { renameConversation(id: $c, title: "x") { id } }`, "c", conv},
				{`mutation($c: ID!) { archiveConversation(id: $c) { id } }`, "c", conv},
				{`mutation($c: ID!) { deleteConversation(id: $c) { id } }`, "c", conv},
				{`mutation($c: ID!) { ask(input: {conversationId: $c, clientMessageId: "s1", question: "hi"}) { attempt { id } } }`, "c", conv},
				{`mutation($a: ID!) { retryAttempt(input: {attemptId: $a, clientRequestId: "s2"}) { attempt { id } } }`, "a", rows.Attempt},
				{`mutation($a: ID!) { cancelAttempt(id: $a) { id } }`, "a", rows.Attempt},
				{`mutation($a: ID!) { submitFeedback(input: {attemptId: $a, rating: UP}) { id } }`, "a", rows.Attempt},
			}
			for _, w := range writes {
				sameAsRandom(t, sam, w.query, w.key, w.id, nil)
			}
			var still struct {
				Conversation struct{ Title, Status string }
			}
			mustDo(t, alice, `query($c: ID!) { conversation(id: $c) { title status } }`, map[string]any{"c": conv}, &still)
			if still.Conversation.Status != "ACTIVE" || still.Conversation.Title == "x" {
				t.Errorf("a write under the grant changed the conversation: %+v", still)
			}
		})

		if r := decide(t, alice, revokeGrant, g.ID); r.Status != "REVOKED" || r.State != "REVOKED" {
			t.Fatalf("revoke: %+v", r)
		}
		t.Run("revoked grant, nothing visible at once", reads)
		// Revoking again is a no-op.
		if r := decide(t, alice, revokeGrant, g.ID); r.Status != "REVOKED" {
			t.Fatalf("second revoke: %+v", r)
		}
	})
}

// TestSupportGrantExpired: an expired grant opens nothing and is NOT_FOUND
// to approve, deny or revoke, exactly like an unknown id; the owner's list
// shows it as EXPIRED.
func TestSupportGrantExpired(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, sam := h.Client(t, "alice"), h.Client(t, "sam", "support")
		conv := answered(t, alice, "上传文件最大是多少？", false).Conversation
		approved := request(t, sam, conv, "1h")
		decide(t, alice, approveGrant, approved.ID)
		pending := request(t, sam, conv, "1h")
		mustDo(t, sam, readUnderGrant, map[string]any{"c": conv}, nil)

		// Both grants expire: their expiry moves into the past.
		err := h.DB.Client.SupportGrant.Update().Where(supportgrant.ConversationID(uuid.MustParse(conv))).
			SetExpiresAt(time.Now().Add(-time.Minute)).Exec(sysCtx())
		if err != nil {
			t.Fatal(err)
		}
		sameAsRandom(t, sam, readUnderGrant, "c", conv, nil)
		for _, m := range []string{approveGrant, denyGrant, revokeGrant} {
			sameAsRandom(t, alice, m, "g", pending.ID, nil)
			sameAsRandom(t, alice, m, "g", approved.ID, nil)
		}
		var listed struct {
			Conversation struct{ SupportGrants []struct{ State string } }
		}
		mustDo(t, alice, `query($c: ID!) { conversation(id: $c) { supportGrants { state } } }`, map[string]any{"c": conv}, &listed)
		if len(listed.Conversation.SupportGrants) != 2 {
			t.Fatalf("list: %+v", listed)
		}
		for _, g := range listed.Conversation.SupportGrants {
			if g.State != "EXPIRED" {
				t.Errorf("state %s, want EXPIRED", g.State)
			}
		}
	})
}

// TestSupportGrantProbe: the grant API answers another tenant's support
// agent, another user, another support agent and random ids with
// identical NOT_FOUND errors, and changes nothing.
func TestSupportGrantProbe(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, sam := h.Client(t, "alice"), h.Client(t, "sam", "support")
		rows := answered(t, alice, "上传文件最大是多少？", false)
		pending := request(t, sam, rows.Conversation, nil)
		active := request(t, sam, rows.Conversation, nil)
		decide(t, alice, approveGrant, active.ID)
		deleted := answered(t, alice, "退款多久到账？", false).Conversation
		onDeleted := request(t, sam, deleted, nil)
		mustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": deleted}, nil)

		mallory := gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"support", "admin", "member"}))
		probers := []struct {
			name   string
			client *gqlclient.Client
		}{
			{"another tenant's support agent and admin", mallory},
			{"another member", h.Client(t, "bob")},
			{"another support agent", h.Client(t, "sue", "support")},
		}
		for _, p := range probers {
			t.Run(p.name, func(t *testing.T) {
				for _, g := range []string{pending.ID, active.ID} {
					for _, q := range []string{approveGrant, denyGrant, revokeGrant, grantNode} {
						sameAsRandom(t, p.client, q, "g", g, nil)
					}
				}
				sameAsRandom(t, p.client, readUnderGrant, "c", rows.Conversation, nil)
				var list struct{ SupportGrants struct{ TotalCount int } }
				mustDo(t, p.client, `{ supportGrants { totalCount } }`, nil, &list)
				if list.SupportGrants.TotalCount != 0 {
					t.Errorf("sees %d grants", list.SupportGrants.TotalCount)
				}
			})
		}
		t.Run("another tenant's support agent requests", func(t *testing.T) {
			for _, id := range rows.ids() {
				sameAsRandom(t, mallory, requestGrant, "c", id, nil)
			}
		})
		t.Run("a deleted conversation's grant", func(t *testing.T) {
			for _, c := range []*gqlclient.Client{alice, sam} {
				for _, q := range []string{approveGrant, revokeGrant, grantNode} {
					sameAsRandom(t, c, q, "g", onDeleted.ID, nil)
				}
			}
			sameAsRandom(t, sam, requestGrant, "c", deleted, nil)
		})
		// Nothing the probers did changed a grant.
		for _, g := range []grantOut{pending, active} {
			n, err := h.DB.Client.SupportGrant.Query().
				Where(supportgrant.ID(uuid.MustParse(g.ID)), supportgrant.DecidedByIsNil(), supportgrant.RevokedByIsNil()).Count(sysCtx())
			if err != nil {
				t.Fatal(err)
			}
			if g.ID == pending.ID && n != 1 {
				t.Errorf("the pending grant was decided or revoked by a prober")
			}
		}
		var a struct{ Node struct{ Status string } }
		mustDo(t, alice, grantNode, map[string]any{"g": active.ID}, &a)
		if a.Node.Status != "APPROVED" {
			t.Errorf("the active grant is %s", a.Node.Status)
		}
	})
}

// TestSupportGrantPolicyAndInput: who may approve under each tenant
// policy, the duration bounds, and who may request.
func TestSupportGrantPolicyAndInput(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, sam, root := h.Client(t, "alice"), h.Client(t, "sam", "support"), h.Client(t, "root", "admin")
		conv := answered(t, alice, "上传文件最大是多少？", false).Conversation

		policies := []struct {
			policy     domain.SupportApproval
			requested  string // status right after the request
			adminMay   bool
			agentReads bool // right after the request
		}{
			{domain.SupportApprovalOwner, "PENDING", false, false},
			{domain.SupportApprovalOwnerOrAdmin, "PENDING", true, false},
			{domain.SupportApprovalAuto, "APPROVED", false, true},
		}
		for _, p := range policies {
			t.Run(string(p.policy), func(t *testing.T) {
				h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) { s.SupportApproval = p.policy })
				g := request(t, sam, conv, nil)
				if g.Status != p.requested {
					t.Fatalf("requested: %s, want %s", g.Status, p.requested)
				}
				r, err := sam.Do(ctxT(t), readUnderGrant, map[string]any{"c": conv})
				if err != nil {
					t.Fatal(err)
				}
				if reads := len(r.Errors) == 0; reads != p.agentReads {
					t.Errorf("agent reads after the request: %v, want %v", reads, p.agentReads)
				}
				if p.requested != "PENDING" {
					decide(t, alice, revokeGrant, g.ID)
					return
				}
				// The agent never approves their own request.
				if code, _ := errorCode(t, sam, approveGrant, map[string]any{"g": g.ID}); code != "FORBIDDEN" {
					t.Errorf("agent approves: %s", code)
				}
				ar, err := root.Do(ctxT(t), approveGrant, map[string]any{"g": g.ID})
				if err != nil {
					t.Fatal(err)
				}
				code := ""
				if len(ar.Errors) > 0 {
					code = ar.Errors[0].Code()
				}
				if p.adminMay && code != "" || !p.adminMay && code != "FORBIDDEN" {
					t.Errorf("admin approves: %q (may: %v)", code, p.adminMay)
				}
				decide(t, alice, revokeGrant, g.ID)
			})
		}
		h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) {
			s.SupportApproval = domain.SupportApprovalOwner
			s.SupportGrantMax = domain.Duration{Duration: 48 * time.Hour}
		})

		inputs := []struct {
			name     string
			client   *gqlclient.Client
			duration any
			code     string
			field    string
			seconds  int
		}{
			{"default duration", sam, nil, "", "", 24 * 3600},
			{"explicit duration", sam, "90m", "", "", 90 * 60},
			{"the maximum", sam, "48h", "", "", 48 * 3600},
			{"over the maximum", sam, "49h", "BAD_USER_INPUT", "duration", 0},
			{"zero", sam, "0s", "BAD_USER_INPUT", "duration", 0},
			{"negative", sam, "-1h", "BAD_USER_INPUT", "duration", 0},
			{"not a duration", sam, "a day", "BAD_USER_INPUT", "duration", 0},
			{"a member", h.Client(t, "bob"), nil, "FORBIDDEN", "", 0},
			{"an admin", root, nil, "FORBIDDEN", "", 0},
			{"the owner herself", h.Client(t, "alice", "support"), nil, "BAD_USER_INPUT", "conversationId", 0},
		}
		for _, in := range inputs {
			t.Run(in.name, func(t *testing.T) {
				vars := map[string]any{"c": conv, "d": in.duration}
				if in.code == "" {
					var out struct{ RequestSupportAccess grantOut }
					mustDo(t, in.client, requestGrant, vars, &out)
					if out.RequestSupportAccess.DurationSeconds != in.seconds {
						t.Errorf("duration %d, want %d", out.RequestSupportAccess.DurationSeconds, in.seconds)
					}
					return
				}
				code, e := errorCode(t, in.client, requestGrant, vars)
				if code != in.code || in.field != "" && e.Extensions["field"] != in.field {
					t.Errorf("got %s %v, want %s field %q", code, e.Extensions, in.code, in.field)
				}
			})
		}
		if code, e := errorCode(t, sam, `mutation($c: ID!) { requestSupportAccess(conversationId: $c, reason: "  ") { id } }`,
			map[string]any{"c": conv}); code != "BAD_USER_INPUT" || e.Extensions["field"] != "reason" {
			t.Errorf("blank reason: %s %v", code, e.Extensions)
		}
	})
}

// TestAuditEventsConnection: admins browse their tenant's audit events
// with a where filter, ordering and paging, metadata included; other roles
// are FORBIDDEN; another tenant's admin sees none of them.
func TestAuditEventsConnection(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, sam, root := h.Client(t, "alice"), h.Client(t, "sam", "support"), h.Client(t, "root", "admin")
		conv := answered(t, alice, "上传文件最大是多少？", false).Conversation
		g := request(t, sam, conv, nil)
		decide(t, alice, approveGrant, g.ID)
		mustDo(t, sam, readUnderGrant, map[string]any{"c": conv}, nil)
		mustDo(t, root, `query($c: ID!) { conversation(id: $c) { title } }`, map[string]any{"c": conv}, nil)

		type page struct {
			AuditEvents struct {
				TotalCount int
				PageInfo   struct {
					HasNextPage bool
					EndCursor   string
				}
				Edges []struct {
					Node struct {
						Actor, Action, TargetType, TargetID, At string
						Metadata                                []struct{ Key, Value string }
					}
				}
			}
		}
		const q = `query($w: AuditEventWhereInput, $after: Cursor, $o: AuditEventOrder) { auditEvents(first: 2, after: $after, where: $w, orderBy: $o) {
			totalCount pageInfo { hasNextPage endCursor } edges { node { actor action targetType targetId at metadata { key value } } } } }`
		var all page
		mustDo(t, root, q, map[string]any{"w": map[string]any{"actionIn": []string{"support.requested", "support.approved", "conversation.support_read", "conversation.admin_read"}}}, &all)
		if all.AuditEvents.TotalCount != 4 || !all.AuditEvents.PageInfo.HasNextPage || len(all.AuditEvents.Edges) != 2 {
			t.Fatalf("first page: %+v", all.AuditEvents)
		}
		// Newest first by default.
		if all.AuditEvents.Edges[0].Node.Action != "conversation.admin_read" || all.AuditEvents.Edges[1].Node.Action != "conversation.support_read" {
			t.Errorf("order: %+v", all.AuditEvents.Edges)
		}
		meta := map[string]string{}
		for _, m := range all.AuditEvents.Edges[1].Node.Metadata {
			meta[m.Key] = m.Value
		}
		if meta["grant"] != g.ID || meta["owner"] != "alice" || all.AuditEvents.Edges[1].Node.Actor != "sam" || all.AuditEvents.Edges[1].Node.TargetID != conv {
			t.Errorf("support read event: %+v", all.AuditEvents.Edges[1].Node)
		}
		var next page
		mustDo(t, root, q, map[string]any{"w": map[string]any{"actionIn": []string{"support.requested", "support.approved", "conversation.support_read", "conversation.admin_read"}},
			"after": all.AuditEvents.PageInfo.EndCursor}, &next)
		if len(next.AuditEvents.Edges) != 2 || next.AuditEvents.PageInfo.HasNextPage || next.AuditEvents.Edges[1].Node.Action != "support.requested" {
			t.Errorf("second page: %+v", next.AuditEvents)
		}
		var asc page
		mustDo(t, root, q, map[string]any{"w": map[string]any{"targetType": "SupportGrant"}, "o": map[string]any{"field": "AT", "direction": "ASC"}}, &asc)
		if asc.AuditEvents.TotalCount != 2 || asc.AuditEvents.Edges[0].Node.Action != "support.requested" {
			t.Errorf("ascending, filtered: %+v", asc.AuditEvents)
		}
		for _, c := range []*gqlclient.Client{alice, sam, h.Client(t, "carol", "agent")} {
			if code, _ := errorCode(t, c, `{ auditEvents { totalCount } }`, nil); code != "FORBIDDEN" {
				t.Errorf("non-admin: %s", code)
			}
		}
		var other struct{ AuditEvents struct{ TotalCount int } }
		mustDo(t, gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"admin"})), `{ auditEvents { totalCount } }`, nil, &other)
		if other.AuditEvents.TotalCount != 0 {
			t.Errorf("another tenant's admin sees %d events", other.AuditEvents.TotalCount)
		}
	})
}
