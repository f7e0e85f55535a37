package server_test

import (
	"slices"
	"testing"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// Temporary chats through the API (docs/API.md, "Temporary chats"), on
// both backends. internal/chat/temporary_test.go covers expiry, the purge
// and running answers; these check what a client sees.

// temporaryConv is a conversation's temporary state as the API shows it.
type temporaryConv struct {
	ID                 string
	Version            int
	Temporary          bool
	TemporaryExpiresAt string // empty when null
}

const (
	temporaryFields = `id version temporary temporaryExpiresAt`
	createTemporary = `mutation($t: Boolean) { createConversation(input: {title: "temp", temporary: $t}) { ` + temporaryFields + ` } }`
	keepConv        = `mutation($id: ID!, $v: Int) { keepConversation(id: $id, expectedVersion: $v) { ` + temporaryFields + ` } }`
	setTemporary    = `mutation($p: String, $r: String) { updateTenantSettings(input: {temporaryChats: $p, temporaryChatRetention: $r}) { temporaryChats temporaryChatRetention } }`
)

// TestTemporaryChatsThroughTheAPI: a temporary chat carries its expiry,
// is never listed (not even to the tenant admin), and is NOT_FOUND to
// everyone but its owner, byte-identically to an unknown id; it cannot be
// exported; keepConversation (with a version check) makes it a normal,
// listed conversation.
func TestTemporaryChatsThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		admin := h.Client(t, "root", "admin")
		mallory := gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"admin", "member"}))
		normal := createTitled(t, alice, "normal")
		tmp := organiseDo[temporaryConv](t, alice, createTemporary, map[string]any{"t": true}, "createConversation")
		if !tmp.Temporary || tmp.TemporaryExpiresAt == "" {
			t.Fatalf("created: %+v", tmp)
		}
		read := organiseDo[temporaryConv](t, alice, `query($id: ID!) { conversation(id: $id) { `+temporaryFields+` } }`, map[string]any{"id": tmp.ID}, "conversation")
		if read != tmp {
			t.Errorf("the owner reads %+v, created %+v", read, tmp)
		}
		if got := listIDs(t, alice, ownList, "conversations", nil); !slices.Equal(got, []string{normal}) {
			t.Errorf("own list: %v, want only %s", got, normal)
		}
		if got := listIDs(t, admin, adminList, "adminConversations", nil); slices.Contains(got, tmp.ID) {
			t.Errorf("the admin list shows the temporary chat: %v", got)
		}
		for name, c := range map[string]*gqlclient.Client{"bob": bob, "another tenant's admin": mallory} {
			t.Run(name, func(t *testing.T) {
				sameAsRandom(t, c, `query($id: ID!) { conversation(id: $id) { id } }`, "id", tmp.ID, nil)
				sameAsRandom(t, c, `mutation($id: ID!) { keepConversation(id: $id) { id } }`, "id", tmp.ID, nil)
			})
		}
		wantBadInput(t, organiseErr(t, alice, `query($id: ID!) { exportConversation(id: $id, format: JSON) { content } }`, map[string]any{"id": tmp.ID}), "id", "")

		if e := organiseErr(t, alice, keepConv, map[string]any{"id": tmp.ID, "v": tmp.Version + 1}); e.Code() != "CONFLICT" {
			t.Errorf("stale keep: %s %v", e.Code(), e.Extensions)
		}
		kept := organiseDo[temporaryConv](t, alice, keepConv, map[string]any{"id": tmp.ID, "v": tmp.Version}, "keepConversation")
		if kept.Temporary || kept.TemporaryExpiresAt != "" || kept.Version != tmp.Version+1 {
			t.Errorf("kept: %+v", kept)
		}
		again := organiseDo[temporaryConv](t, alice, keepConv, map[string]any{"id": tmp.ID}, "keepConversation")
		if again != kept {
			t.Errorf("keeping a normal conversation changed it: %+v, was %+v", again, kept)
		}
		want := []string{normal, tmp.ID}
		slices.Sort(want)
		if got := listIDs(t, alice, ownList, "conversations", nil); !slices.Equal(got, want) {
			t.Errorf("own list after keep: %v, want %v", got, want)
		}
	})
}

// TestTemporaryChatPolicy: the tenant admin sets the policy and the
// retention (checked, with the field named); FORBIDDEN refuses temporary
// chats, ENFORCED makes every new conversation temporary and refuses to
// keep one; members cannot change the policy, and read it on viewer.
func TestTemporaryChatPolicy(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		admin := h.Client(t, "root", "admin")
		type policy struct{ TemporaryChats, TemporaryChatRetention string }
		var before struct{ TenantSettings policy }
		mustDo(t, admin, `{ tenantSettings { temporaryChats temporaryChatRetention } }`, nil, &before)
		if before.TenantSettings != (policy{"ALLOWED", "24h0m0s"}) {
			t.Errorf("defaults: %+v", before.TenantSettings)
		}
		for _, c := range []struct{ policy, retention, field string }{
			{"SOMETIMES", "", "temporaryChats"},
			{"", "1m", "temporaryChatRetention"},
			{"", "721h", "temporaryChatRetention"},
			{"", "soon", "temporaryChatRetention"},
		} {
			vars := map[string]any{}
			if c.policy != "" {
				vars["p"] = c.policy
			}
			if c.retention != "" {
				vars["r"] = c.retention
			}
			wantBadInput(t, organiseErr(t, admin, setTemporary, vars), c.field, "")
		}
		if e := organiseErr(t, alice, setTemporary, map[string]any{"p": "FORBIDDEN"}); e.Code() != "FORBIDDEN" {
			t.Errorf("a member changed the policy: %s", e.Code())
		}

		set := organiseDo[policy](t, admin, setTemporary, map[string]any{"p": "FORBIDDEN", "r": "2h"}, "updateTenantSettings")
		if set != (policy{"FORBIDDEN", "2h0m0s"}) {
			t.Errorf("set: %+v", set)
		}
		// A member cannot read tenantSettings, but reads the policy that
		// decides what the temporary-chat switch may do on viewer.
		var seen struct{ Viewer policy }
		mustDo(t, alice, `{ viewer { temporaryChats temporaryChatRetention } }`, nil, &seen)
		if seen.Viewer != set {
			t.Errorf("the member's viewer shows %+v, the admin set %+v", seen.Viewer, set)
		}
		if e := organiseErr(t, alice, createTemporary, map[string]any{"t": true}); e.Code() != "FORBIDDEN" {
			t.Errorf("temporary under FORBIDDEN: %s %v", e.Code(), e.Extensions)
		}
		if c := organiseDo[temporaryConv](t, alice, createTemporary, map[string]any{"t": false}, "createConversation"); c.Temporary {
			t.Errorf("normal under FORBIDDEN: %+v", c)
		}

		organiseDo[policy](t, admin, setTemporary, map[string]any{"p": "ENFORCED"}, "updateTenantSettings")
		c := organiseDo[temporaryConv](t, alice, createTemporary, nil, "createConversation")
		if !c.Temporary || c.TemporaryExpiresAt == "" {
			t.Fatalf("not temporary under ENFORCED: %+v", c)
		}
		if e := organiseErr(t, alice, keepConv, map[string]any{"id": c.ID}); e.Code() != "FORBIDDEN" {
			t.Errorf("keep under ENFORCED: %s", e.Code())
		}
	})
}
