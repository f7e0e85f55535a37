package attachment_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	entattachment "github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/askrate"
	attach "github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// gate is an embedder whose calls wait until the test releases them: it
// reports each call's start on started. With honourCtx a call also ends
// when its context does; without, it models a call that nothing
// interrupts. A minute's safety net ends a call the test forgot.
type gate struct {
	started   chan struct{}
	release   chan struct{}
	once      sync.Once
	honourCtx bool
	model     llm.Embedder
}

func newGate(honourCtx bool) *gate {
	return &gate{started: make(chan struct{}, 64), release: make(chan struct{}), honourCtx: honourCtx, model: offline.New(offline.Options{})}
}

func (g *gate) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.started <- struct{}{}
	done := ctx.Done()
	if !g.honourCtx {
		done = nil
	}
	select {
	case <-g.release:
	case <-done:
		return nil, ctx.Err()
	case <-time.After(time.Minute):
		return nil, errors.New("gate: never released")
	}
	return g.model.Embed(context.WithoutCancel(ctx), texts)
}

func (g *gate) EmbeddingModel() string { return g.model.EmbeddingModel() }

// open lets every call, waiting or to come, go on.
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// waitStarted waits for the next call to start.
func (g *gate) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(time.Minute):
		t.Fatal("no embedding call started")
	}
}

// rowOf reads attachment id as the attachment job.
func (w *world) rowOf(t *testing.T, id uuid.UUID) *ent.Attachment {
	t.Helper()
	a, err := w.db.Client.Attachment.Get(viewer.SystemJobContext(context.Background(), viewer.JobAttachments), id)
	require.NoError(t, err)
	return a
}

// TestUploadDoesNotWaitForProcessing: with one worker busy on a file
// whose processing does not end, uploads return at once, UPLOADED, while
// the queue has room (two places); the next is refused with UNAVAILABLE
// naming the queue, and stores nothing. Once the work goes on, every
// queued file becomes READY and uploads are accepted again. (Processing
// ran inside the request, so the first upload returned only when its
// processing ended.)
func TestUploadDoesNotWaitForProcessing(t *testing.T) {
	forEachWith(t, attach.Options{Workers: 1, Queue: 2}, func(t *testing.T, w *world, g *gate) {
		first, err := w.svc.Upload(as(alice), w.a.ID, "first.txt", []byte("the first file"))
		require.NoError(t, err)
		require.Equal(t, entattachment.StatusUPLOADED, first.Status)
		g.waitStarted(t) // the worker holds the first file
		var queued []*ent.Attachment
		for i := range 2 {
			a, err := w.svc.Upload(as(alice), w.a.ID, fmt.Sprintf("q%d.txt", i), []byte("a queued file"))
			require.NoError(t, err)
			require.Equal(t, entattachment.StatusUPLOADED, a.Status)
			queued = append(queued, a)
		}
		_, err = w.svc.Upload(as(alice), w.a.ID, "full.txt", []byte("one too many"))
		require.Equal(t, domain.CodeUnavailable, code(err), "%v", err)
		var de *domain.Error
		require.ErrorAs(t, err, &de)
		require.Equal(t, attach.LimitQueue, de.Details["limit"])
		require.Positive(t, de.Details["retryAfterSeconds"])
		require.Equal(t, 3, w.rows(t), "the refused upload stored nothing")
		require.Len(t, w.keys(t), 3)

		g.open()
		for _, a := range append([]*ent.Attachment{first}, queued...) {
			require.Equal(t, entattachment.StatusREADY, w.settled.wait(t, a.ID).Status)
		}
		require.Equal(t, entattachment.StatusREADY, w.upload(t, alice, w.a.ID, "later.txt", []byte("room again")).Status)
	})
}

// TestClientGoneDoesNotMatter: the request's context ends (the client
// went away) while its file is being processed; the processing, which
// runs on the pool's context, goes on to READY. (Processing ran on the
// request's context: cancelled, it left the file FAILED or stuck.)
func TestClientGoneDoesNotMatter(t *testing.T) {
	forEachWith(t, attach.Options{}, func(t *testing.T, w *world, g *gate) {
		g.honourCtx = true
		ctx, cancel := context.WithCancel(as(alice))
		done := make(chan *ent.Attachment, 1)
		go func() {
			a, err := w.svc.Upload(ctx, w.a.ID, "f.txt", []byte("the client leaves"))
			if err != nil {
				t.Error(err)
			}
			done <- a
		}()
		g.waitStarted(t)
		cancel()
		g.open()
		a := <-done
		require.NotNil(t, a)
		require.Equal(t, entattachment.StatusREADY, w.settled.wait(t, a.ID).Status)
	})
}

// TestShutdownLeavesWorkRetryable: a shutdown cancels the running
// attempt and releases the queued file; both are left in processing with
// their lease ended and the interrupted attempt given back, and another
// instance's Recover takes them over and finishes them, each with one
// attempt counted.
func TestShutdownLeavesWorkRetryable(t *testing.T) {
	forEachWith(t, attach.Options{Workers: 1}, func(t *testing.T, w *world, g *gate) {
		g.honourCtx = true
		running, err := w.svc.Upload(as(alice), w.a.ID, "running.txt", []byte("cut short"))
		require.NoError(t, err)
		g.waitStarted(t)
		queued, err := w.svc.Upload(as(alice), w.a.ID, "queued.txt", []byte("never started"))
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, w.svc.Shutdown(ctx))
		now := time.Now()
		for _, id := range []uuid.UUID{running.ID, queued.ID} {
			a := w.rowOf(t, id)
			require.NotEqual(t, entattachment.StatusREADY, a.Status)
			require.NotEqual(t, entattachment.StatusFAILED, a.Status)
			require.Zero(t, a.Attempts, "a shutdown does not count as an attempt: %s %s %v", a.Name, a.Status, a.LeaseUntil)
			require.NotNil(t, a.LeaseUntil)
			require.False(t, a.LeaseUntil.After(now), "the lease is over")
		}
		_, err = w.svc.Upload(as(alice), w.a.ID, "after.txt", []byte("too late"))
		require.Equal(t, domain.CodeUnavailable, code(err), "a stopped instance takes no uploads")

		other, settled := newService(t, w.db, w.blobs, attach.Options{Embedder: offline.New(offline.Options{})})
		n, err := other.Recover(context.Background(), time.Now().Add(time.Millisecond))
		require.NoError(t, err)
		require.Equal(t, 2, n)
		for _, id := range []uuid.UUID{running.ID, queued.ID} {
			require.Equal(t, entattachment.StatusREADY, settled.wait(t, id).Status)
			require.Equal(t, 1, w.rowOf(t, id).Attempts)
		}
	})
}

// stuck inserts an attachment of alice's conversation A left in
// CHUNKING by an instance that stopped: its bytes stored, attempts
// attempts started and its lease ending at lease (nil: a row queued
// before leases existed).
func (w *world) stuck(t *testing.T, name string, attempts int, lease *time.Time) *ent.Attachment {
	t.Helper()
	ctx := viewer.SystemJobContext(context.Background(), viewer.JobAttachments)
	id := uuid.Must(uuid.NewV7())
	key := fmt.Sprintf("attachments/%s/%s/%s", alice.TenantID, w.a.ID, id)
	data := []byte("the stuck file " + name)
	require.NoError(t, w.blobs.Put(ctx, key, bytes.NewReader(data)))
	return w.db.Client.Attachment.Create().SetID(id).SetTenantID(alice.TenantID).SetOwnerID(alice.UserID).
		SetConversationID(w.a.ID).SetName(name).SetMediaType(attach.TypeText).SetSize(int64(len(data))).
		SetSha256("00").SetBlobKey(key).SetStatus(entattachment.StatusCHUNKING).
		SetAttempts(attempts).SetNillableLeaseUntil(lease).SaveX(ctx)
}

// TestStuckAttachmentsAreRetriedOnceThenFailed: attachments left in
// processing by an instance that stopped (kill -9, a crash) are taken
// over once their lease has expired, by exactly one of two instances
// racing: one whose first attempt was lost is retried and becomes
// READY; one queued before leases existed too; one whose retry was lost
// as well is FAILED with PROCESSING_INTERRUPTED, its bytes deleted, and
// no longer counts against its owner's limits; one whose lease still
// runs is left to its instance.
func TestStuckAttachmentsAreRetriedOnceThenFailed(t *testing.T) {
	forEachWith(t, attach.Options{}, func(t *testing.T, w *world, g *gate) {
		g.open()
		past, future := time.Now().Add(-time.Minute), time.Now().Add(time.Hour)
		retried := w.stuck(t, "retried", 1, &past)
		legacy := w.stuck(t, "legacy", 0, nil)
		lost := w.stuck(t, "lost twice", 2, &past)
		held := w.stuck(t, "held", 1, &future)

		// Every stuck file counts until it is FAILED: 87 bytes of 100.
		_, err := w.svc.Upload(as(alice), w.b.ID, "big.txt", []byte(fmt.Sprintf("%030d", 0)))
		requireLimit(t, err, attach.LimitBytesPerUser)

		other, _ := newService(t, w.db, w.blobs, attach.Options{Embedder: g})
		var (
			wg     sync.WaitGroup
			counts [2]int
			errs   [2]error
		)
		for i, svc := range []*attach.Service{w.svc, other} {
			wg.Go(func() { counts[i], errs[i] = svc.Recover(context.Background(), time.Now()) })
		}
		wg.Wait()
		require.NoError(t, errs[0])
		require.NoError(t, errs[1])
		require.Equal(t, 3, counts[0]+counts[1], "each stuck file is taken over once")

		// Either instance may have taken a file: wait on the one that did.
		settle := func(id uuid.UUID) *ent.Attachment {
			t.Helper()
			for range 3000 {
				a := w.rowOf(t, id)
				if a.Status == entattachment.StatusREADY || a.Status == entattachment.StatusFAILED {
					return a
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Fatalf("attachment %s never settled", id)
			return nil
		}
		for _, a := range []*ent.Attachment{retried, legacy} {
			got := settle(a.ID)
			require.Equal(t, entattachment.StatusREADY, got.Status, a.Name)
			require.Equal(t, a.Attempts+1, got.Attempts, a.Name)
		}
		got := settle(lost.ID)
		require.Equal(t, entattachment.StatusFAILED, got.Status)
		require.Equal(t, attach.FailureInterrupted, *got.FailureCode)
		require.NotContains(t, w.keys(t), lost.BlobKey, "its bytes are deleted")
		require.Equal(t, entattachment.StatusCHUNKING, w.rowOf(t, held.ID).Status, "a running lease is left alone")

		// The FAILED file no longer counts: 3 × 20 + 30 fits in 100.
		require.Equal(t, entattachment.StatusREADY, w.upload(t, alice, w.b.ID, "big.txt", []byte(fmt.Sprintf("%030d", 0))).Status)
	}, func(s *domain.TenantSettings) { s.AttachmentMaxBytesPerUser = 100 })
}

// TestDeadlineRetriesOnceThenFails: an attempt that passes its deadline
// inside a call that nothing interrupts is handed to recovery at once
// (the watchdog), retried once on the other worker, and when that passes
// its deadline too the attachment is FAILED with PROCESSING_TIMEOUT:
// two attempts, its bytes deleted. The stuck calls' late ends change
// nothing.
func TestDeadlineRetriesOnceThenFails(t *testing.T) {
	opts := attach.Options{Workers: 2, Deadline: 300 * time.Millisecond, RecoverEvery: time.Hour}
	forEachWith(t, opts, func(t *testing.T, w *world, g *gate) {
		a, err := w.svc.Upload(as(alice), w.a.ID, "slow.txt", []byte("never finishes"))
		require.NoError(t, err)
		got := w.settled.wait(t, a.ID)
		require.Equal(t, entattachment.StatusFAILED, got.Status)
		require.Equal(t, attach.FailureTimeout, *got.FailureCode)
		require.Equal(t, 2, got.Attempts)
		require.Len(t, g.started, 2, "two attempts ran")
		require.Empty(t, w.keys(t))

		g.open()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, w.svc.Shutdown(ctx)) // the stuck calls have ended
		require.Equal(t, entattachment.StatusFAILED, w.rowOf(t, a.ID).Status)
		require.Equal(t, []string{"UPLOADED", "CHUNKING", "CHUNKING", "FAILED"}, w.settled.statesOf(a.ID))
	})
}

// TestUploadRate: each user's uploads are metered in the database, so
// two instances together admit the burst once: past it, an upload on
// either is RATE_LIMITED naming uploadRate with retryAfterSeconds, and
// stores nothing; another user's uploads are not affected.
func TestUploadRate(t *testing.T) {
	forEach(t, nil, func(t *testing.T, w *world) {
		rate := attach.Options{Limiter: newLimiter(w.db), UploadRate: askRate(1, 2)}
		one, _ := newService(t, w.db, w.blobs, rate)
		two, _ := newService(t, w.db, w.blobs, rate)
		_, err := one.Upload(as(alice), w.a.ID, "1.txt", []byte("one"))
		require.NoError(t, err)
		_, err = two.Upload(as(alice), w.a.ID, "2.txt", []byte("two"))
		require.NoError(t, err)
		for _, svc := range []*attach.Service{one, two} {
			_, err = svc.Upload(as(alice), w.a.ID, "3.txt", []byte("three"))
			require.Equal(t, domain.CodeRateLimited, code(err), "%v", err)
			var de *domain.Error
			require.ErrorAs(t, err, &de)
			require.Equal(t, attach.LimitUploadRate, de.Details["limit"])
			require.GreaterOrEqual(t, de.Details["retryAfterSeconds"], 1)
		}
		require.Equal(t, 2, w.rows(t), "a refused upload stores nothing")
		_, err = one.Upload(as(bob), w.bobsID, "b.txt", []byte("bob's own"))
		require.NoError(t, err)
	})
}

// forEachWith runs fn on both backends with a world whose service has
// opts and a gate as its embedder.
func forEachWith(t *testing.T, opts attach.Options, fn func(t *testing.T, w *world, g *gate), settings ...func(*domain.TenantSettings)) {
	forEach(t, nil, func(t *testing.T, w *world) {
		g := newGate(false)
		o := opts
		o.Embedder = g
		w.svc, w.settled = newService(t, w.db, w.blobs, o)
		t.Cleanup(g.open) // before the service's shutdown, which waits for its calls
		fn(t, w, g)
	}, settings...)
}

func newLimiter(db *store.DB) askrate.Limiter { return askrate.NewDBLimiter(db, nil) }

func askRate(perMinute float64, burst int) askrate.Rate {
	return askrate.Rate{PerMinute: perMinute, Burst: burst}
}
