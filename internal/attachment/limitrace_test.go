package attachment_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/domain"
)

// TestConcurrentUploadsNeverPassTheLimits: 20 uploads racing for 5 free
// places keep exactly 5 (rows and blobs); the 15 others are BAD_USER_INPUT
// naming the limit, and left no bytes behind. The per-conversation count
// is raced in one conversation; the per-user bytes across two.
func TestConcurrentUploadsNeverPassTheLimits(t *testing.T) {
	const uploads, fits = 20, 5
	cases := []struct {
		name     string
		limit    string
		settings func(*domain.TenantSettings)
		two      bool // alternate conversations A and B
	}{
		{"files per conversation", attachment.LimitFilesPerConversation, func(s *domain.TenantSettings) {
			s.AttachmentMaxFilesPerConversation = fits
		}, false},
		// Each file has 10 bytes: 5 of them fill 50.
		{"bytes per user", attachment.LimitBytesPerUser, func(s *domain.TenantSettings) {
			s.AttachmentMaxBytesPerUser = fits * 10
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEach(t, nil, func(t *testing.T, w *world) {
				errs := make([]error, uploads)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := range uploads {
					conv := w.a.ID
					if tc.two && i%2 == 1 {
						conv = w.b.ID
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						_, errs[i] = w.svc.Upload(as(alice), conv, fmt.Sprintf("f%02d.txt", i), fmt.Appendf(nil, "file %05d", i))
					}()
				}
				close(start)
				wg.Wait()
				stored := 0
				for _, err := range errs {
					if err == nil {
						stored++
						continue
					}
					requireLimit(t, err, tc.limit)
				}
				require.Equal(t, fits, stored, "exactly the uploads that fit are kept")
				require.Equal(t, fits, w.rows(t))
				require.Len(t, w.keys(t), fits, "a refused upload leaves no blob")
			}, tc.settings)
		})
	}
}
