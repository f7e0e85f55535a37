package sharing_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/clientaddr"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/sharing"
)

// unknownToken is well-formed and opens nothing: its reads cost only the
// client address's bucket.
const unknownToken = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// TestReadBucketsByClient: IPv6 readers are metered by their /64, so the
// 2^64 addresses of one subscriber are one bucket; IPv4 readers (mapped
// ones included) each by their address. Both backends.
func TestReadBucketsByClient(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		svc := sharing.New(w.db.Client, sharing.Options{Limiter: askrate.NewDBLimiter(w.db, nil),
			AddressRate: askrate.Rate{PerMinute: 0.01, Burst: 2}})
		steps := []struct {
			addr    string
			limited bool
		}{
			{"2001:db8:1:2::1", false},
			{"2001:db8:1:2:ffff::9", false},
			{"2001:db8:1:2:abcd:1:2:3", true}, // the third read of one /64
			{"2001:db8:1:3::1", false},        // the next /64 is another bucket
			{"203.0.113.1", false},
			{"203.0.113.2", false},
			{"203.0.113.1", false},
			{"::ffff:203.0.113.1", true}, // the same IPv4 address
		}
		for i, s := range steps {
			_, err := svc.Read(clientaddr.NewContext(as(bob), s.addr), unknownToken)
			if s.limited {
				require.Equal(t, domain.CodeRateLimited, code(err), "step %d: %s", i, s.addr)
			} else {
				require.Equal(t, domain.CodeNotFound, code(err), "step %d: %s", i, s.addr)
			}
		}
	})
}

// TestIdleReadBucketsAreSwept: every address that read once leaves a
// bucket row; once full again, the sweep deletes them all (and no
// bucket still in use), and reading meters as before. Both backends.
func TestIdleReadBucketsAreSwept(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		fast := askrate.Rate{PerMinute: 600000, Burst: 1} // full again 0.1 ms after a read
		svc := sharing.New(w.db.Client, sharing.Options{Limiter: askrate.NewDBLimiter(w.db, nil), AddressRate: fast, LinkRate: fast})
		slow := sharing.New(w.db.Client, sharing.Options{Limiter: askrate.NewDBLimiter(w.db, nil),
			AddressRate: askrate.Rate{PerMinute: 0.01, Burst: 1}})
		_, tok := w.share(t, w.a1, sharing.CreateInput{})
		ctx := context.Background()
		rows := func() int {
			var n int
			require.NoError(t, w.db.SQL.QueryRowContext(ctx, `SELECT count(*) FROM ask_rates WHERE tenant_id = 'share'`).Scan(&n))
			return n
		}
		for i := range 40 {
			_, err := svc.Read(clientaddr.NewContext(as(bob), fmt.Sprint("198.51.100.", i)), tok)
			require.NoError(t, err)
		}
		_, err := slow.Read(clientaddr.NewContext(as(bob), "192.0.2.1"), unknownToken)
		require.Equal(t, domain.CodeNotFound, code(err))
		require.Equal(t, 42, rows(), "40 addresses, the link and the busy address")
		time.Sleep(10 * time.Millisecond) // the fast buckets fill again

		n, err := svc.SweepIdle(ctx)
		require.NoError(t, err)
		require.Equal(t, 41, n)
		require.Equal(t, 1, rows(), "only the bucket that is not full stays")
		_, err = slow.Read(clientaddr.NewContext(as(bob), "192.0.2.1"), unknownToken)
		require.Equal(t, domain.CodeRateLimited, code(err), "and it still meters")
		_, err = svc.Read(clientaddr.NewContext(as(bob), "198.51.100.1"), tok)
		require.NoError(t, err, "a swept address reads again")

		// A service without a database limiter has nothing to sweep.
		n, err = w.svc.SweepIdle(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
	})
}
