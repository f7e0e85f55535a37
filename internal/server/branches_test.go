package server_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// seededTree is a conversation written straight to the database: a main
// path (the current branch) and side branches.
type seededTree struct {
	Conversation uuid.UUID
	// Path are the current branch's message ids, root first.
	Path []uuid.UUID
	// Forks maps a main-path message that has a sibling to that sibling.
	Forks map[uuid.UUID]uuid.UUID
	// Leaves maps each side branch's first message (a value of Forks) to
	// the branch's last message.
	Leaves map[uuid.UUID]uuid.UUID
}

// seedTree writes a conversation of n messages owned by user: a main path
// and branches side branches of n/50 (at least 2) messages each, every one
// starting as a sibling of a main-path message (an edit, or a regenerated
// answer), spread along the path. Sequence numbers follow creation order:
// the main path first, then the branches, so that along every path they
// grow with depth. The current leaf is the main path's last message.
func seedTree(t testing.TB, h *servertest.Harness, user string, n, branches int) seededTree {
	t.Helper()
	ctx := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	kb, err := h.DB.Client.KnowledgeBase.Query().Where(knowledgebase.TenantID("demo")).First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	side := max(2, n/50)
	mainLen := n - branches*side
	if mainLen < 2*branches {
		t.Fatalf("seedTree: %d messages are too few for %d branches", n, branches)
	}
	now := time.Now()
	conv, err := h.DB.Client.Conversation.Create().SetTenantID("demo").SetUserID(user).SetKnowledgeBaseID(kb.ID).
		SetLastSequenceNo(int64(n)).SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(2 * time.Hour)).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id     uuid.UUID
		parent *uuid.UUID
		depth  int
	}
	var rows []row
	out := seededTree{Conversation: conv.ID, Forks: map[uuid.UUID]uuid.UUID{}, Leaves: map[uuid.UUID]uuid.UUID{}}
	var parent *uuid.UUID
	for d := range mainLen {
		id := uuid.New()
		rows = append(rows, row{id, parent, d})
		out.Path = append(out.Path, id)
		parent = &id
	}
	for b := range branches {
		at := 1 + b*(mainLen-1)/branches // the main-path message the branch is a sibling of
		p := rows[at-1].id
		parent := &p
		var first uuid.UUID
		for d := at; d < at+side; d++ {
			id := uuid.New()
			if d == at {
				first = id
				out.Forks[out.Path[at]] = id
			}
			out.Leaves[first] = id
			rows = append(rows, row{id, parent, d})
			parent = &id
		}
	}
	for from := 0; from < len(rows); from += 500 {
		var bulk []*ent.MessageCreate
		for i := from; i < from+500 && i < len(rows); i++ {
			r := rows[i]
			role := message.RoleUSER
			if r.depth%2 == 1 {
				role = message.RoleASSISTANT
			}
			bulk = append(bulk, h.DB.Client.Message.Create().SetID(r.id).SetTenantID("demo").SetOwnerID(user).
				SetConversationID(conv.ID).SetNillableParentID(r.parent).SetDepth(r.depth).
				SetSequenceNo(int64(i+1)).SetRole(role).
				SetContent(fmt.Sprintf("message %d at depth %d: uploads are limited to 20 MB per file.", i+1, r.depth)))
		}
		if err := h.DB.Client.Message.CreateBulk(bulk...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.DB.Client.Conversation.UpdateOneID(conv.ID).SetCurrentLeafID(out.Path[len(out.Path)-1]).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.DB.SQL.ExecContext(ctx, "ANALYZE messages"); err != nil {
		t.Fatal(err)
	}
	return out
}

const currentPathQuery = `query($c: ID!, $first: Int, $after: Cursor, $last: Int, $before: Cursor) { conversation(id: $c) {
	currentLeafId
	currentPath(first: $first, after: $after, last: $last, before: $before) {
		totalCount pageInfo { hasPreviousPage hasNextPage startCursor endCursor }
		edges { cursor node { id depth parentId sequenceNo role content siblings { ids index count } } } } } }`

type pathPage struct {
	Conversation struct {
		CurrentLeafID *string
		CurrentPath   struct {
			TotalCount int
			PageInfo   struct {
				HasPreviousPage, HasNextPage bool
				StartCursor, EndCursor       *string
			}
			Edges []struct {
				Cursor string
				Node   struct {
					ID       string
					Depth    int
					ParentID *string
					Siblings struct {
						IDs   []string
						Index int
						Count int
					}
				}
			}
		}
	}
}

func (p pathPage) ids() []string {
	var out []string
	for _, e := range p.Conversation.CurrentPath.Edges {
		out = append(out, e.Node.ID)
	}
	return out
}

// depthCursor is the entgql cursor of a message on a path: its id, and
// its depth as the value.
func depthCursor(t *testing.T, id string, depth int) string {
	t.Helper()
	var b bytes.Buffer
	ent.Cursor{ID: uuid.MustParse(id), Value: depth}.MarshalGQL(&b)
	return strings.Trim(b.String(), `"`)
}

func uuidStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// TestCurrentPathPages walks a branched conversation's current path
// backward from the leaf (last/before, as a chat screen scrolls up) and
// forward from the root (first/after), on both backends, and checks that
// each walk yields exactly the branch root to leaf, with its depths,
// totalCount, pageInfo, the entgql cursors (id + depth) and the siblings
// of the branch points; without first or last it is the last 20; an empty
// conversation has an empty path; a page over the maximum is refused like
// any connection's.
func TestCurrentPathPages(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		tr := seedTree(t, h, "pathwalker", 300, 20)
		c := h.Client(t, "pathwalker")
		want := uuidStrings(tr.Path)
		load := func(vars map[string]any) pathPage {
			t.Helper()
			vars["c"] = tr.Conversation.String()
			var p pathPage
			mustDo(t, c, currentPathQuery, vars, &p)
			return p
		}

		// The default page: the last 20.
		def := load(map[string]any{})
		cp := def.Conversation.CurrentPath
		if !slices.Equal(def.ids(), want[len(want)-20:]) || cp.TotalCount != len(want) || !cp.PageInfo.HasPreviousPage || cp.PageInfo.HasNextPage {
			t.Fatalf("default page: %d ids, totalCount %d (want %d), pageInfo %+v", len(def.ids()), cp.TotalCount, len(want), cp.PageInfo)
		}
		if *def.Conversation.CurrentLeafID != want[len(want)-1] {
			t.Fatalf("currentLeafId %s, want %s", *def.Conversation.CurrentLeafID, want[len(want)-1])
		}

		// Backward, 7 at a time.
		var back []string
		vars := map[string]any{"last": 7}
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatal("backward paging does not end")
			}
			p := load(vars)
			cp := p.Conversation.CurrentPath
			back = append(p.ids(), back...)
			for i, e := range cp.Edges {
				if e.Node.Depth != len(want)-len(back)+i {
					t.Fatalf("page %d edge %d has depth %d", pages, i, e.Node.Depth)
				}
				if want := depthCursor(t, e.Node.ID, e.Node.Depth); e.Cursor != want {
					t.Fatalf("cursor %q of %s at depth %d, want %q (entgql, id and depth)", e.Cursor, e.Node.ID, e.Node.Depth, want)
				}
			}
			if pages > 0 && !cp.PageInfo.HasNextPage {
				t.Fatalf("page %d before a cursor has no next page", pages)
			}
			if !cp.PageInfo.HasPreviousPage {
				break
			}
			vars = map[string]any{"last": 7, "before": *cp.PageInfo.StartCursor}
		}
		if !slices.Equal(back, want) {
			t.Fatalf("backward walk: %d messages, want the %d of the branch", len(back), len(want))
		}

		// Forward, 9 at a time.
		var fwd []string
		vars = map[string]any{"first": 9}
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatal("forward paging does not end")
			}
			p := load(vars)
			cp := p.Conversation.CurrentPath
			fwd = append(fwd, p.ids()...)
			if !cp.PageInfo.HasNextPage {
				break
			}
			vars = map[string]any{"first": 9, "after": *cp.PageInfo.EndCursor}
		}
		if !slices.Equal(fwd, want) {
			t.Fatalf("forward walk: %d messages, want the %d of the branch", len(fwd), len(want))
		}

		// Siblings: a branch point shows the main-path message and its
		// fork in creation order; the others are alone.
		all := load(map[string]any{"last": 100})
		var forks int
		for _, e := range all.Conversation.CurrentPath.Edges {
			s := e.Node.Siblings
			id := uuid.MustParse(e.Node.ID)
			if f, ok := tr.Forks[id]; ok {
				forks++
				if s.Count != 2 || s.Index != 0 || !slices.Equal(s.IDs, []string{e.Node.ID, f.String()}) {
					t.Errorf("branch point %s at depth %d: siblings %+v, want [it, %s]", e.Node.ID, e.Node.Depth, s, f)
				}
			} else if s.Count != 1 || s.Index != 0 || !slices.Equal(s.IDs, []string{e.Node.ID}) {
				t.Errorf("message at depth %d: siblings %+v, want itself alone", e.Node.Depth, s)
			}
		}
		if forks == 0 {
			t.Fatal("the last 100 messages hold no branch point")
		}

		// An empty conversation has an empty path.
		empty := createConversation(t, c)
		var ep pathPage
		mustDo(t, c, currentPathQuery, map[string]any{"c": empty}, &ep)
		if ecp := ep.Conversation.CurrentPath; len(ecp.Edges) != 0 || ecp.TotalCount != 0 || ecp.PageInfo.HasPreviousPage || ecp.PageInfo.HasNextPage || ecp.PageInfo.StartCursor != nil {
			t.Fatalf("empty conversation: %+v", ecp)
		}

		// The maximum page size is the connections' one.
		errs := rawErrors(t, c, currentPathQuery, map[string]any{"c": tr.Conversation.String(), "last": 101})
		if len(errs) != 1 || !bytes.Contains(errs[0], []byte(`"limit":"pageSize"`)) || !bytes.Contains(errs[0], []byte(`"BAD_USER_INPUT"`)) {
			t.Fatalf("last: 101: %s", jsonList(errs))
		}
	})
}

// TestCurrentPathStatementsAreFlat: the chat screen's first page of a
// conversation (currentPath(last: 50) with each message's siblings) takes
// the same statements at 100 messages as at 10,000 messages with 20
// branches, and they are few; so does messages(last: 50) with siblings (one
// statement for all of them). SQLite seeds 2,500 messages instead of
// 10,000: its pure-Go driver writes them about ten times slower under the
// race detector, and 25 times the small tree shows the same flatness.
func TestCurrentPathStatementsAreFlat(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var n atomic.Int64
			h := servertest.Start(t, b, servertest.Options{
				Driver: func(d dialect.Driver) dialect.Driver { return countingDriver{Driver: d, n: &n} },
			})
			c := h.Client(t, countedUser)
			count := func(tr seededTree) int64 {
				t.Helper()
				var p pathPage
				n.Store(0)
				mustDo(t, c, currentPathQuery, map[string]any{"c": tr.Conversation.String(), "last": 50}, &p)
				got := n.Load()
				want := uuidStrings(tr.Path[len(tr.Path)-50:])
				if !slices.Equal(p.ids(), want) || p.Conversation.CurrentPath.TotalCount != len(tr.Path) {
					t.Fatalf("page of %d messages (totalCount %d), want the last 50 of %d", len(p.ids()), p.Conversation.CurrentPath.TotalCount, len(tr.Path))
				}
				return got
			}
			// The messages connection with siblings batches them too.
			countMessages := func(tr seededTree) int64 {
				t.Helper()
				var p struct {
					Conversation struct {
						Messages struct {
							Edges []struct {
								Node struct{ Siblings struct{ Count int } }
							}
						}
					}
				}
				n.Store(0)
				mustDo(t, c, `query($c: ID!) { conversation(id: $c) { messages(last: 50) { edges { node { id siblings { ids index count } } } } } }`,
					map[string]any{"c": tr.Conversation.String()}, &p)
				got := n.Load()
				if len(p.Conversation.Messages.Edges) != 50 {
					t.Fatalf("messages page of %d", len(p.Conversation.Messages.Edges))
				}
				return got
			}
			bigN := 10000
			if b.Name == "sqlite" {
				bigN = 2500
			}
			smallTree, bigTree := seedTree(t, h, countedUser, 100, 20), seedTree(t, h, countedUser, bigN, 20)
			small, big := count(smallTree), count(bigTree)
			t.Logf("%s: %d statements at 100 messages, %d at %d with 20 branches", b.Name, small, big, bigN)
			if small != big {
				t.Errorf("the path page's statements grow with the conversation: %d at 100 messages, %d at %d", small, big, bigN)
			}
			if big > 6 {
				t.Errorf("%d statements for the path page; want at most 6 (conversation, leaf, page, siblings)", big)
			}
			if ms, mb := countMessages(smallTree), countMessages(bigTree); ms != mb || mb > 4 {
				t.Errorf("messages(last: 50) with siblings: %d statements at 100 messages, %d at %d; want equal, at most 4 (conversation, page, siblings)", ms, mb, bigN)
			}
		})
	}
}
