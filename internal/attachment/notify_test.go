package attachment_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	attach "github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/attachment/clamd"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// recorder collects the states Notify reports.
type recorder struct {
	mu     sync.Mutex
	states []string
}

func (r *recorder) notify(_ context.Context, a *ent.Attachment) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, a.Status.String())
}

func TestNotifyReportsEveryState(t *testing.T) {
	f, err := clamd.NewFake()
	require.NoError(t, err)
	defer f.Close()
	cases := []struct {
		name    string
		scanner attach.Scanner
		data    string
		want    []string
	}{
		{"no scanner", nil, "clean", []string{"UPLOADED", "CHUNKING", "READY"}},
		{"clean scan", clamd.New(f.Addr()), "clean", []string{"UPLOADED", "SCANNING", "CHUNKING", "READY"}},
		{"infected", clamd.New(f.Addr()), clamd.EICAR, []string{"UPLOADED", "SCANNING", "FAILED"}},
	}
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		w := &world{db: db}
		w.seed(t)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				blobs, err := blobstore.NewFS(t.TempDir())
				require.NoError(t, err)
				rec := &recorder{}
				svc := attach.New(db.Client, blobs, attach.Options{Scanner: tc.scanner, Notify: rec.notify})
				_, err = svc.Upload(as(alice), w.a.ID, "f.txt", []byte(tc.data))
				require.NoError(t, err)
				require.Equal(t, tc.want, rec.states)
			})
		}
	})
}
