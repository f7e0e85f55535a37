package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// Organising conversations through the API (docs/API.md, "Organising
// conversations"), on both backends.

const organisedFields = `id version pinned pinnedAt folderId folder { id name } tags { id name color } metadata { key value }`

// organised is a conversation's organisation as the API shows it.
type organised struct {
	ID       string
	Version  int
	Pinned   bool
	PinnedAt *string
	FolderID *string
	Folder   *struct{ ID, Name string }
	Tags     []struct {
		ID, Name string
		Color    *string
	}
	Metadata []struct{ Key, Value string }
}

// tagNames lists the names of o's tags.
func (o organised) tagNames() []string {
	var out []string
	for _, t := range o.Tags {
		out = append(out, t.Name)
	}
	return out
}

// organiseDo runs one mutation or query as c and returns the field named
// key of its data, failing on errors.
func organiseDo[T any](t *testing.T, c *gqlclient.Client, query string, vars map[string]any, key string) T {
	t.Helper()
	var out map[string]T
	mustDo(t, c, query, vars, &out)
	return out[key]
}

// organiseErr runs query as c and returns its single error.
func organiseErr(t *testing.T, c *gqlclient.Client, query string, vars map[string]any) gqlclient.Error {
	t.Helper()
	r, err := c.Do(ctxT(t), query, vars)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) != 1 {
		t.Fatalf("%s: want one error, got %+v (data %s)", query, r.Errors, r.Data)
	}
	return r.Errors[0]
}

// wantBadInput checks a BAD_USER_INPUT naming field (and limit, if any).
func wantBadInput(t *testing.T, e gqlclient.Error, field, limit string) {
	t.Helper()
	if e.Code() != "BAD_USER_INPUT" || e.Extensions["field"] != field {
		t.Errorf("got %s (field %v), want BAD_USER_INPUT on %s: %s", e.Code(), e.Extensions["field"], field, e.Message)
	}
	if limit != "" && e.Extensions["limit"] != limit {
		t.Errorf("limit %v, want %s", e.Extensions["limit"], limit)
	}
}

func createTag(t *testing.T, c *gqlclient.Client, name string) string {
	t.Helper()
	return organiseDo[struct{ ID string }](t, c, `mutation($n: String!) { createTag(input: {name: $n}) { id } }`,
		map[string]any{"n": name}, "createTag").ID
}

func createFolder(t *testing.T, c *gqlclient.Client, name string, parent any) string {
	t.Helper()
	return organiseDo[struct{ ID string }](t, c, `mutation($n: String!, $p: ID) { createFolder(input: {name: $n, parentId: $p}) { id } }`,
		map[string]any{"n": name, "p": parent}, "createFolder").ID
}

// listIDs lists the ids of the viewer's conversations matching where.
func listIDs(t *testing.T, c *gqlclient.Client, query, key string, where map[string]any) []string {
	t.Helper()
	var out map[string]struct {
		Edges []struct{ Node struct{ ID string } }
	}
	mustDo(t, c, query, map[string]any{"w": where}, &out)
	var ids []string
	for _, e := range out[key].Edges {
		ids = append(ids, e.Node.ID)
	}
	slices.Sort(ids)
	return ids
}

const (
	ownList   = `query($w: ConversationWhereInput) { conversations(first: 50, where: $w) { edges { node { id } } } }`
	adminList = `query($w: AdminConversationWhereInput) { adminConversations(first: 50, where: $w) { edges { node { id } } } }`
	readConv  = `query($id: ID!) { conversation(id: $id) { ` + organisedFields + ` } }`
	pinConv   = `mutation($id: ID!, $v: Int) { pinConversation(id: $id, expectedVersion: $v) { ` + organisedFields + ` } }`
	unpinConv = `mutation($id: ID!, $v: Int) { unpinConversation(id: $id, expectedVersion: $v) { ` + organisedFields + ` } }`
	setTags   = `mutation($id: ID!, $t: [ID!]!, $v: Int) { setConversationTags(conversationId: $id, tagIds: $t, expectedVersion: $v) { ` + organisedFields + ` } }`
	addTags   = `mutation($id: ID!, $t: [ID!]!) { addConversationTags(conversationId: $id, tagIds: $t) { ` + organisedFields + ` } }`
	rmTags    = `mutation($id: ID!, $t: [ID!]!) { removeConversationTags(conversationId: $id, tagIds: $t) { ` + organisedFields + ` } }`
	moveConv  = `mutation($id: ID!, $f: ID, $v: Int) { moveConversationToFolder(conversationId: $id, folderId: $f, expectedVersion: $v) { ` + organisedFields + ` } }`
	setMeta   = `mutation($id: ID!, $m: [MetadataEntryInput!]!, $v: Int) { updateConversationMetadata(id: $id, metadata: $m, expectedVersion: $v) { ` + organisedFields + ` } }`
)

// TestOrganisePins: pin and unpin bump the version once (a repeat is a
// no-op), a stale expectedVersion is CONFLICT with currentVersion, and
// the pinned filter splits the list (pinned first: two queries).
func TestOrganisePins(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		a, b := createTitled(t, alice, "a"), createTitled(t, alice, "b")
		c := organiseDo[organised](t, alice, pinConv, map[string]any{"id": a, "v": 0}, "pinConversation")
		if !c.Pinned || c.PinnedAt == nil || c.Version != 1 {
			t.Fatalf("pinned: %+v", c)
		}
		again := organiseDo[organised](t, alice, pinConv, map[string]any{"id": a}, "pinConversation")
		if again.Version != 1 || *again.PinnedAt != *c.PinnedAt {
			t.Errorf("a repeated pin changed the conversation: %+v", again)
		}
		e := organiseErr(t, alice, unpinConv, map[string]any{"id": a, "v": 0})
		if e.Code() != "CONFLICT" || fmt.Sprint(e.Extensions["currentVersion"]) != "1" {
			t.Errorf("stale unpin: %s %v", e.Code(), e.Extensions)
		}
		if got := listIDs(t, alice, ownList, "conversations", map[string]any{"pinned": true}); !slices.Equal(got, []string{a}) {
			t.Errorf("pinned: %v, want [%s]", got, a)
		}
		if got := listIDs(t, alice, ownList, "conversations", map[string]any{"pinned": false, "titleIn": []string{"a", "b"}}); !slices.Equal(got, []string{b}) {
			t.Errorf("unpinned: %v, want [%s]", got, b)
		}
		u := organiseDo[organised](t, alice, unpinConv, map[string]any{"id": a, "v": 1}, "unpinConversation")
		if u.Pinned || u.PinnedAt != nil || u.Version != 2 {
			t.Errorf("unpinned: %+v", u)
		}
	})
}

// TestOrganiseTags: tags are created, renamed, recoloured, listed by name
// and deleted; names are checked and unique ignoring case; a
// conversation's tags are set, added and removed (with a limit); the
// tagIds filter needs every tag; deleting a tag removes it from its
// conversations and bumps their versions.
func TestOrganiseTags(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		work, home := createTag(t, alice, "  Work "), createTag(t, alice, "Home")
		wantBadInput(t, organiseErr(t, alice, `mutation { createTag(input: {name: "work"}) { id } }`, nil), "name", "")
		wantBadInput(t, organiseErr(t, alice, `mutation { createTag(input: {name: "   "}) { id } }`, nil), "name", "")
		wantBadInput(t, organiseErr(t, alice, `mutation($n: String!) { createTag(input: {name: $n}) { id } }`,
			map[string]any{"n": strings.Repeat("标", 65)}), "name", "tagNameLength")
		wantBadInput(t, organiseErr(t, alice, `mutation { createTag(input: {name: "x", color: "red;"}) { id } }`, nil), "color", "")
		createTag(t, alice, strings.Repeat("标", 64))

		upd := organiseDo[struct {
			Name  string
			Color *string
		}](t, alice, `mutation($id: ID!) { updateTag(id: $id, input: {name: "Job", color: "#0af"}) { name color } }`, map[string]any{"id": work}, "updateTag")
		if upd.Name != "Job" || upd.Color == nil || *upd.Color != "#0af" {
			t.Errorf("updated tag: %+v", upd)
		}
		upd = organiseDo[struct {
			Name  string
			Color *string
		}](t, alice, `mutation($id: ID!) { updateTag(id: $id, input: {color: null}) { name color } }`, map[string]any{"id": work}, "updateTag")
		if upd.Name != "Job" || upd.Color != nil {
			t.Errorf("cleared colour: %+v", upd)
		}
		wantBadInput(t, organiseErr(t, alice, `mutation($id: ID!) { updateTag(id: $id, input: {name: "HOME"}) { id } }`, map[string]any{"id": work}), "name", "")

		var list struct{ Tags []struct{ Name string } }
		mustDo(t, alice, `{ tags { name } }`, nil, &list)
		if len(list.Tags) != 3 || list.Tags[0].Name != "Home" || list.Tags[1].Name != "Job" {
			t.Errorf("tags: %+v", list.Tags)
		}

		a, b := createTitled(t, alice, "a"), createTitled(t, alice, "b")
		c := organiseDo[organised](t, alice, setTags, map[string]any{"id": a, "t": []string{work, home, work}, "v": 0}, "setConversationTags")
		if !slices.Equal(c.tagNames(), []string{"Home", "Job"}) || c.Version != 1 {
			t.Errorf("set: %+v", c)
		}
		c = organiseDo[organised](t, alice, setTags, map[string]any{"id": a, "t": []string{home, work}}, "setConversationTags")
		if c.Version != 1 {
			t.Errorf("setting the same tags bumped the version: %d", c.Version)
		}
		organiseDo[organised](t, alice, addTags, map[string]any{"id": b, "t": []string{home}}, "addConversationTags")
		if got := listIDs(t, alice, ownList, "conversations", map[string]any{"tagIds": []string{home}}); !slices.Equal(got, sorted(a, b)) {
			t.Errorf("tag home: %v", got)
		}
		if got := listIDs(t, alice, ownList, "conversations", map[string]any{"tagIds": []string{home, work}}); !slices.Equal(got, []string{a}) {
			t.Errorf("tags home and job: %v", got)
		}
		admin := h.Client(t, "root", "admin")
		if got := listIDs(t, admin, adminList, "adminConversations", map[string]any{"tagIds": []string{home, work}}); !slices.Equal(got, []string{a}) {
			t.Errorf("admin: tags home and job: %v", got)
		}
		random := make([]string, 51)
		for i := range random {
			random[i] = uuid.NewString()
		}
		wantBadInput(t, organiseErr(t, alice, ownList, map[string]any{"w": map[string]any{"tagIds": random}}), "tagIds", "tagsPerConversation")
		wantBadInput(t, organiseErr(t, admin, adminList, map[string]any{"w": map[string]any{"tagIds": random}}), "tagIds", "tagsPerConversation")
		c = organiseDo[organised](t, alice, rmTags, map[string]any{"id": a, "t": []string{home}}, "removeConversationTags")
		if !slices.Equal(c.tagNames(), []string{"Job"}) {
			t.Errorf("removed: %v", c.tagNames())
		}
		many := make([]string, 51)
		for i := range many {
			many[i] = work
		}
		organiseDo[organised](t, alice, setTags, map[string]any{"id": a, "t": many}, "setConversationTags") // duplicates count once
		wantBadInput(t, organiseErr(t, alice, setTags, map[string]any{"id": a, "t": manyTags(t, alice, 51)}), "tagIds", "tagsPerConversation")

		before := organiseDo[organised](t, alice, readConv, map[string]any{"id": b}, "conversation")
		del := organiseDo[struct{ DeletedTagID string }](t, alice, `mutation($id: ID!) { deleteTag(id: $id) { deletedTagId } }`, map[string]any{"id": home}, "deleteTag")
		if del.DeletedTagID != home {
			t.Errorf("deleted %s", del.DeletedTagID)
		}
		after := organiseDo[organised](t, alice, readConv, map[string]any{"id": b}, "conversation")
		if len(after.Tags) != 0 || after.Version != before.Version+1 {
			t.Errorf("after deleteTag: %+v (was version %d)", after, before.Version)
		}
	})
}

// manyTags creates n tags of c and returns their ids.
func manyTags(t *testing.T, c *gqlclient.Client, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = createTag(t, c, fmt.Sprintf("many %d", i))
	}
	return out
}

func sorted(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

// TestOrganiseFolders: folders nest up to the depth limit, cannot move
// into themselves, list in tree order; conversations move in and out;
// the folderId and unfiled filters; deleting a folder unfiles its
// conversations (bumping their versions) and moves its children up.
func TestOrganiseFolders(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		top := createFolder(t, alice, "Top", nil)
		mid := createFolder(t, alice, "Mid", top)
		low := createFolder(t, alice, "Low", mid)
		d4 := createFolder(t, alice, "D4", low)
		d5 := createFolder(t, alice, "D5", d4)
		wantBadInput(t, organiseErr(t, alice, `mutation($p: ID) { createFolder(input: {name: "D6", parentId: $p}) { id } }`, map[string]any{"p": d5}), "parentId", "folderDepth")
		wantBadInput(t, organiseErr(t, alice, `mutation($id: ID!, $p: ID) { updateFolder(id: $id, input: {parentId: $p}) { id } }`,
			map[string]any{"id": top, "p": low}), "parentId", "")
		other := createFolder(t, alice, "Other", nil)
		moved := organiseDo[struct {
			ParentID *string
			Position int
		}](t, alice, `mutation($id: ID!, $p: ID) { updateFolder(id: $id, input: {parentId: $p}) { parentId position } }`,
			map[string]any{"id": other, "p": top}, "updateFolder")
		if moved.ParentID == nil || *moved.ParentID != top || moved.Position != 1 {
			t.Errorf("moved: %+v", moved)
		}
		var fs struct{ Folders []struct{ Name string } }
		mustDo(t, alice, `{ folders { name } }`, nil, &fs)
		var names []string
		for _, f := range fs.Folders {
			names = append(names, f.Name)
		}
		if !slices.Equal(names, []string{"Top", "Mid", "Low", "D4", "D5", "Other"}) {
			t.Errorf("folders: %v", names)
		}

		a := createTitled(t, alice, "a")
		c := organiseDo[organised](t, alice, moveConv, map[string]any{"id": a, "f": mid, "v": 0}, "moveConversationToFolder")
		if c.FolderID == nil || *c.FolderID != mid || c.Folder == nil || c.Folder.Name != "Mid" || c.Version != 1 {
			t.Errorf("filed: %+v", c)
		}
		if got := listIDs(t, alice, ownList, "conversations", map[string]any{"folderId": mid}); !slices.Equal(got, []string{a}) {
			t.Errorf("folder filter: %v", got)
		}
		if got := listIDs(t, alice, ownList, "conversations", map[string]any{"unfiled": false}); !slices.Equal(got, []string{a}) {
			t.Errorf("filed filter: %v", got)
		}
		admin := h.Client(t, "root", "admin")
		if got := listIDs(t, admin, adminList, "adminConversations", map[string]any{"folderId": mid}); !slices.Equal(got, []string{a}) {
			t.Errorf("admin folder filter: %v", got)
		}
		mustDo(t, alice, `mutation($id: ID!) { deleteFolder(id: $id) { deletedFolderId } }`, map[string]any{"id": mid}, nil)
		c = organiseDo[organised](t, alice, readConv, map[string]any{"id": a}, "conversation")
		if c.FolderID != nil || c.Folder != nil || c.Version != 2 {
			t.Errorf("after deleteFolder: %+v", c)
		}
		lowNow := organiseDo[struct{ ParentID *string }](t, alice, `query($id: ID!) { node(id: $id) { ... on Folder { parentId } } }`, map[string]any{"id": low}, "node")
		if lowNow.ParentID == nil || *lowNow.ParentID != top {
			t.Errorf("the deleted folder's child is under %v, want %s", lowNow.ParentID, top)
		}
		if got := listIDs(t, alice, ownList, "conversations", map[string]any{"unfiled": true, "id": a}); !slices.Equal(got, []string{a}) {
			t.Errorf("unfiled filter: %v", got)
		}
	})
}

// TestOrganiseMetadata: metadata merges (null deletes), is checked with
// extensions.field and limit, starts with createConversation (with a
// folder), and filters lists by exact key and value, a key with quotes
// and dots included.
func TestOrganiseMetadata(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice := h.Client(t, "alice")
		f := createFolder(t, alice, "Inbox", nil)
		created := organiseDo[organised](t, alice, `mutation($f: ID) { createConversation(input: {title: "m", folderId: $f,
			metadata: [{key: "crm.id", value: "42"}, {key: "it's", value: "x"}, {key: "gone", value: null}]}) { `+organisedFields+` } }`,
			map[string]any{"f": f}, "createConversation")
		if len(created.Metadata) != 2 || created.Metadata[0].Key != "crm.id" || created.FolderID == nil || *created.FolderID != f {
			t.Fatalf("created: %+v", created)
		}
		id := created.ID
		c := organiseDo[organised](t, alice, setMeta, map[string]any{"id": id, "v": 0,
			"m": []map[string]any{{"key": "it's", "value": nil}, {"key": "stage", "value": "lead"}}}, "updateConversationMetadata")
		if len(c.Metadata) != 2 || c.Metadata[0] != (struct{ Key, Value string }{"crm.id", "42"}) || c.Metadata[1].Key != "stage" || c.Version != 1 {
			t.Errorf("merged: %+v", c)
		}
		other := createTitled(t, alice, "other")
		organiseDo[organised](t, alice, setMeta, map[string]any{"id": other, "m": []map[string]any{{"key": "crm.id", "value": "43"}}}, "updateConversationMetadata")
		for _, list := range []struct{ q, key string }{{ownList, "conversations"}, {adminList, "adminConversations"}} {
			client := alice
			if list.key == "adminConversations" {
				client = h.Client(t, "root", "admin")
			}
			got := listIDs(t, client, list.q, list.key, map[string]any{"metadata": []map[string]any{{"key": "crm.id", "value": "42"}, {"key": "stage", "value": "lead"}}})
			if !slices.Equal(got, []string{id}) {
				t.Errorf("%s metadata filter: %v", list.key, got)
			}
			if got := listIDs(t, client, list.q, list.key, map[string]any{"metadata": []map[string]any{{"key": "x') OR 1=1 --", "value": "42"}}}); len(got) != 0 {
				t.Errorf("%s hostile key matched %v", list.key, got)
			}
		}
		entries := make([]map[string]any, 15)
		for i := range entries {
			entries[i] = map[string]any{"key": fmt.Sprintf("k%d", i), "value": "v"}
		}
		wantBadInput(t, organiseErr(t, alice, setMeta, map[string]any{"id": id, "m": entries}), "metadata", "metadataKeys")
		wantBadInput(t, organiseErr(t, alice, setMeta, map[string]any{"id": id, "m": []map[string]any{{"key": strings.Repeat("k", 65), "value": "v"}}}), "metadata", "metadataKeyLength")
		wantBadInput(t, organiseErr(t, alice, setMeta, map[string]any{"id": id, "m": []map[string]any{{"key": "k", "value": strings.Repeat("v", 513)}}}), "metadata", "metadataValueLength")
		wantBadInput(t, organiseErr(t, alice, setMeta, map[string]any{"id": id, "m": []map[string]any{{"key": "", "value": "v"}}}), "metadata", "")
		wantBadInput(t, organiseErr(t, alice, `mutation { createConversation(input: {metadata: [{key: "", value: "v"}]}) { id } }`, nil), "metadata", "")
		if c := organiseDo[organised](t, alice, readConv, map[string]any{"id": id}, "conversation"); c.Version != 1 || len(c.Metadata) != 2 {
			t.Errorf("refused updates changed the conversation: %+v", c)
		}
	})
}

// TestOrganiseProbes: nobody but the owner organises a conversation or
// uses a tag or folder: another user, an admin of the tenant, another
// tenant's admin and a support agent with an approved grant get NOT_FOUND
// byte for byte like a random id, and so does the owner on a DELETED
// conversation. The agent reads the granted conversation with pinned
// false, folder null, tags [] and metadata [], while the tenant's admin
// sees it all.
func TestOrganiseProbes(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		admin := h.Client(t, "root", "admin")
		sam := h.Client(t, "sam", "support")
		mallory := gqlclient.New(h.URL, h.Token(t, "globex", "mallory", []string{"admin", "member"}))
		conv := createTitled(t, alice, "organised")
		tg, fd := createTag(t, alice, "Mine"), createFolder(t, alice, "Mine", nil)
		organiseDo[organised](t, alice, setTags, map[string]any{"id": conv, "t": []string{tg}}, "setConversationTags")
		organiseDo[organised](t, alice, moveConv, map[string]any{"id": conv, "f": fd}, "moveConversationToFolder")
		organiseDo[organised](t, alice, pinConv, map[string]any{"id": conv}, "pinConversation")
		organiseDo[organised](t, alice, setMeta, map[string]any{"id": conv, "m": []map[string]any{{"key": "k", "value": "v"}}}, "updateConversationMetadata")
		g := request(t, sam, conv, nil)
		decide(t, alice, approveGrant, g.ID)

		bobTag, bobFolder := createTag(t, bob, "Bob's"), createFolder(t, bob, "Bob's", nil)
		convProbes := []string{
			`mutation($id: ID!) { pinConversation(id: $id) { id } }`,
			`mutation($id: ID!) { unpinConversation(id: $id) { id } }`,
			`mutation($id: ID!) { setConversationTags(conversationId: $id, tagIds: []) { id } }`,
			`mutation($id: ID!) { addConversationTags(conversationId: $id, tagIds: []) { id } }`,
			`mutation($id: ID!) { removeConversationTags(conversationId: $id, tagIds: []) { id } }`,
			`mutation($id: ID!) { moveConversationToFolder(conversationId: $id, folderId: null) { id } }`,
			`mutation($id: ID!) { updateConversationMetadata(id: $id, metadata: [{key: "k", value: null}]) { id } }`,
		}
		tagProbes := []string{
			`mutation($id: ID!) { updateTag(id: $id, input: {name: "x"}) { id } }`,
			`mutation($id: ID!) { deleteTag(id: $id) { deletedTagId } }`,
		}
		folderProbes := []string{
			`mutation($id: ID!) { updateFolder(id: $id, input: {name: "x"}) { id } }`,
			`mutation($id: ID!) { deleteFolder(id: $id) { deletedFolderId } }`,
			`mutation($id: ID!) { createFolder(input: {name: "x", parentId: $id}) { id } }`,
		}
		for name, c := range map[string]*gqlclient.Client{"bob": bob, "admin": admin, "support agent": sam, "another tenant's admin": mallory} {
			t.Run(name, func(t *testing.T) {
				for _, q := range convProbes {
					sameAsRandom(t, c, q, "id", conv, nil)
				}
				for _, q := range tagProbes {
					sameAsRandom(t, c, q, "id", tg, nil)
				}
				for _, q := range folderProbes {
					sameAsRandom(t, c, q, "id", fd, nil)
				}
			})
		}
		// Alice cannot use Bob's tag or folder.
		sameAsRandom(t, alice, `mutation($t: ID!, $c: ID!) { addConversationTags(conversationId: $c, tagIds: [$t]) { id } }`, "t", bobTag, map[string]any{"c": conv})
		sameAsRandom(t, alice, `mutation($f: ID!, $c: ID!) { moveConversationToFolder(conversationId: $c, folderId: $f) { id } }`, "f", bobFolder, map[string]any{"c": conv})
		sameAsRandom(t, alice, `mutation($f: ID!) { createConversation(input: {folderId: $f}) { id } }`, "f", bobFolder, nil)
		var bobs struct{ Tags, Folders []struct{ ID string } }
		mustDo(t, bob, `{ tags { id } folders { id } }`, nil, &bobs)
		if len(bobs.Tags) != 1 || len(bobs.Folders) != 1 {
			t.Errorf("bob's lists: %+v", bobs)
		}

		seen := organiseDo[organised](t, sam, readConv, map[string]any{"id": conv}, "conversation")
		if seen.Pinned || seen.PinnedAt != nil || seen.FolderID != nil || seen.Folder != nil || len(seen.Tags) != 0 || len(seen.Metadata) != 0 || seen.Tags == nil || seen.Metadata == nil {
			t.Errorf("the support agent sees the organisation: %+v", seen)
		}
		full := organiseDo[organised](t, admin, readConv, map[string]any{"id": conv}, "conversation")
		if !full.Pinned || full.Folder == nil || len(full.Tags) != 1 || len(full.Metadata) != 1 {
			t.Errorf("the admin does not see the organisation: %+v", full)
		}

		mustDo(t, alice, `mutation($id: ID!) { deleteConversation(id: $id, reason: "gone") { id } }`, map[string]any{"id": conv}, nil)
		for _, q := range convProbes {
			sameAsRandom(t, alice, q, "id", conv, nil)
		}
	})
}

// TestOrganiseEventsAcrossInstances: alice's device on instance B hears
// CONVERSATION_UPDATED, with the conversation as it is now, for a pin, a
// tag, a folder move and a metadata change made on instance A, and for
// each conversation a folder deletion unfiles.
func TestOrganiseEventsAcrossInstances(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, a *servertest.Harness) {
		b := servertest.Start(t, testdb.Backend{}, servertest.Options{Beside: a})
		ws, err := b.Client(t, "alice").DialWS(ctxT(t), gqlclient.WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ws.Close)
		sub, err := ws.Subscribe(viewerEventsQuery, nil)
		if err != nil {
			t.Fatal(err)
		}
		feed := &feedSub{t: t, c: b.Client(t, "alice"), sub: sub}
		feed.ready()
		alice := a.Client(t, "alice")
		conv := createTitled(t, alice, "evented")
		if ev := feed.next(); ev.Kind != "CONVERSATION_CREATED" {
			t.Fatalf("got %s", ev.Kind)
		}
		tg, fd := createTag(t, alice, "T"), createFolder(t, alice, "F", nil)
		steps := []func(){
			func() { organiseDo[organised](t, alice, pinConv, map[string]any{"id": conv}, "pinConversation") },
			func() {
				organiseDo[organised](t, alice, setTags, map[string]any{"id": conv, "t": []string{tg}}, "setConversationTags")
			},
			func() {
				organiseDo[organised](t, alice, moveConv, map[string]any{"id": conv, "f": fd}, "moveConversationToFolder")
			},
			func() {
				organiseDo[organised](t, alice, setMeta, map[string]any{"id": conv, "m": []map[string]any{{"key": "k", "value": "v"}}}, "updateConversationMetadata")
			},
			func() {
				mustDo(t, alice, `mutation($id: ID!) { deleteFolder(id: $id) { deletedFolderId } }`, map[string]any{"id": fd}, nil)
			},
			func() {
				mustDo(t, alice, `mutation($id: ID!) { deleteTag(id: $id) { deletedTagId } }`, map[string]any{"id": tg}, nil)
			},
		}
		for i, step := range steps {
			step()
			ev := feed.next()
			if ev.Kind != "CONVERSATION_UPDATED" || ev.ConversationID != conv || ev.Conversation == nil {
				t.Fatalf("step %d: got %s of %s", i, ev.Kind, ev.ConversationID)
			}
		}
	})
}
