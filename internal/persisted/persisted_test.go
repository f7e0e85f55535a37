package persisted_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/persisted"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestParseManifest reads both manifest formats and refuses malformed ones.
func TestParseManifest(t *testing.T) {
	q := "query Me { viewer { userId } }"
	cases := []struct {
		name, json string
		ids        []string // ids that must resolve to q
		err        string
	}{
		{"apollo", `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"abc","name":"Me","type":"query","body":"` + q + `"}]}`, []string{"abc", persisted.Hash(q)}, ""},
		{"relay", `{"md5-1":"` + q + `"}`, []string{"md5-1", persisted.Hash(q)}, ""},
		{"wrong format", `{"format":"other","version":1,"operations":[]}`, nil, "unsupported manifest format"},
		{"wrong version", `{"format":"apollo-persisted-query-manifest","version":2,"operations":[]}`, nil, "unsupported manifest format"},
		{"no body", `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"x"}]}`, nil, "no id or body"},
		{"relay non-string", `{"a":1}`, nil, "not a non-empty document string"},
		{"not an object", `[1]`, nil, "not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := persisted.ParseManifest([]byte(c.json))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("want error %q, got %v", c.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range c.ids {
				if body, ok := m.Lookup(id); !ok || body != q {
					t.Fatalf("Lookup(%q) = %q, %v", id, body, ok)
				}
			}
			if _, ok := m.Lookup("unknown"); ok {
				t.Fatal("an unknown id resolved")
			}
		})
	}
}

// clock is a manual clock for the store.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// rows counts the table's rows as the persisted-query job.
func rows(t *testing.T, db *store.DB) int {
	t.Helper()
	n, err := db.Client.PersistedQuery.Query().Count(viewer.SystemJobContext(context.Background(), viewer.JobPersistedQueries))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStoreIsBoundedAndShared writes more queries than the bound, on each
// backend: the table keeps MaxRows, the least recently used out first (a
// query read after it was written survives newer ones), and a second
// store on the same database (another replica) reads what the first
// wrote. Viewers cannot read the table at all.
func TestStoreIsBoundedAndShared(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		opts := persisted.StoreOptions{MaxRows: 3, FrontSize: 1, TouchEvery: time.Minute, Now: clk.now}
		a := persisted.NewStore(db.Client, opts)
		query := func(i int) string { return fmt.Sprintf("{ q%d: __typename }", i) }
		for i := range 3 {
			clk.t = clk.t.Add(time.Hour)
			a.Add(ctx, persisted.Hash(query(i)), query(i))
		}
		// Query 0 is used again, through another replica, so query 1 is
		// now the least recently used.
		clk.t = clk.t.Add(time.Hour)
		b := persisted.NewStore(db.Client, opts)
		if got, ok := b.Get(ctx, persisted.Hash(query(0))); !ok || got != query(0) {
			t.Fatalf("replica b: Get = %q, %v", got, ok)
		}
		clk.t = clk.t.Add(time.Hour)
		a.Add(ctx, persisted.Hash(query(3)), query(3))
		if n := rows(t, db); n != 3 {
			t.Fatalf("%d rows, want the bound 3", n)
		}
		c := persisted.NewStore(db.Client, opts) // an empty front cache
		for i, want := range []bool{true, false, true, true} {
			if _, ok := c.Get(ctx, persisted.Hash(query(i))); ok != want {
				t.Fatalf("query %d present = %v, want %v", i, ok, want)
			}
		}
		if _, err := db.Client.PersistedQuery.Query().Count(ctx); err == nil {
			t.Fatal("a context without the persisted-query job read the table")
		}
		if _, err := db.Client.PersistedQuery.Query().Count(viewer.SystemJobContext(ctx, viewer.JobPurge)); err == nil {
			t.Fatal("another system job read the table")
		}
	})
}
