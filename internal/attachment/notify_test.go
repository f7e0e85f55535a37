package attachment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	attach "github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/attachment/clamd"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

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
				svc, settled := newService(t, db, blobs, attach.Options{Scanner: tc.scanner})
				a, err := svc.Upload(as(alice), w.a.ID, "f.txt", []byte(tc.data))
				require.NoError(t, err)
				settled.wait(t, a.ID)
				require.Equal(t, tc.want, settled.statesOf(a.ID))
			})
		}
	})
}
