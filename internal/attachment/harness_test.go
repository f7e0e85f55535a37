package attachment_test

import (
	"archive/zip"
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	entattachment "github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Viewers: alice owns conversations A and B; bob is a member of her
// tenant; carol is an admin; sam is a support agent (no grant); eve is of
// another tenant.
var (
	alice = &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}}
	bob   = &viewer.Viewer{TenantID: demo.TenantID, UserID: "bob", Roles: []viewer.Role{viewer.RoleMember}}
	carol = &viewer.Viewer{TenantID: demo.TenantID, UserID: "carol", Roles: []viewer.Role{viewer.RoleAdmin}}
	sam   = &viewer.Viewer{TenantID: demo.TenantID, UserID: "sam", Roles: []viewer.Role{viewer.RoleSupport}}
	eve   = &viewer.Viewer{TenantID: "other", UserID: "eve", Roles: []viewer.Role{viewer.RoleMember}}
)

func as(v *viewer.Viewer) context.Context { return viewer.NewContext(context.Background(), v) }

func code(err error) domain.Code { return domain.ErrorCode(err) }

// world is alice's two conversations over one store and service.
type world struct {
	db      *store.DB
	blobs   *blobstore.FS
	svc     *attachment.Service
	settled *settler
	a, b    *ent.Conversation
	bobsID  uuid.UUID
}

// forEach runs fn on both backends with a fresh world; opts edit the demo
// tenant's settings.
func forEach(t *testing.T, scanner attachment.Scanner, fn func(t *testing.T, w *world), opts ...func(*domain.TenantSettings)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		blobs, err := blobstore.NewFS(t.TempDir())
		require.NoError(t, err)
		w := &world{db: db, blobs: blobs}
		w.svc, w.settled = newService(t, db, blobs, attachment.Options{Scanner: scanner})
		w.seed(t, opts...)
		fn(t, w)
	})
}

// newService returns the service on db and blobs with opts, its events
// recorded by the settler it returns, its recovery loop off (the tests
// call Recover), a queue that holds every test's uploads, and stopped
// when the test ends.
func newService(t *testing.T, db *store.DB, blobs blobstore.Store, opts attachment.Options) (*attachment.Service, *settler) {
	st := newSettler(opts.Notify)
	opts.Notify = st.notify
	opts.Postgres = db.Dialect == dialect.Postgres
	if opts.RecoverEvery == 0 {
		opts.RecoverEvery = -1
	}
	if opts.Queue == 0 {
		opts.Queue = 64
	}
	svc := attachment.New(db.Client, blobs, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, svc.Shutdown(ctx))
	})
	return svc, st
}

// settler records the states Notify reports, so that a test can wait for
// an attachment's processing to end.
type settler struct {
	next    func(context.Context, *ent.Attachment)
	mu      sync.Mutex
	last    map[uuid.UUID]*ent.Attachment
	states  map[uuid.UUID][]string
	changed chan struct{}
}

func newSettler(next func(context.Context, *ent.Attachment)) *settler {
	return &settler{next: next, last: map[uuid.UUID]*ent.Attachment{}, states: map[uuid.UUID][]string{}, changed: make(chan struct{})}
}

func (s *settler) notify(ctx context.Context, a *ent.Attachment) {
	s.mu.Lock()
	s.last[a.ID] = a
	s.states[a.ID] = append(s.states[a.ID], a.Status.String())
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	if s.next != nil {
		s.next(ctx, a)
	}
}

// wait returns attachment id once it is READY or FAILED. It fails the
// test if no event says so within a minute (a safety net against a hang,
// not a measurement).
func (s *settler) wait(t *testing.T, id uuid.UUID) *ent.Attachment {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		s.mu.Lock()
		a, ch := s.last[id], s.changed
		s.mu.Unlock()
		if a != nil && (a.Status == entattachment.StatusREADY || a.Status == entattachment.StatusFAILED) {
			return a
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("attachment %s never became READY or FAILED (last: %v)", id, a)
		}
	}
}

// statesOf returns the states reported for id, in order.
func (s *settler) statesOf(id uuid.UUID) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.states[id]...)
}

// upload uploads data as v into conv and waits for its processing to
// end.
func (w *world) upload(t *testing.T, v *viewer.Viewer, conv uuid.UUID, name string, data []byte) *ent.Attachment {
	t.Helper()
	a, err := w.svc.Upload(as(v), conv, name, data)
	require.NoError(t, err)
	require.Equal(t, entattachment.StatusUPLOADED, a.Status, "the request does not wait for the processing")
	return w.settled.wait(t, a.ID)
}

func (w *world) seed(t *testing.T, opts ...func(*domain.TenantSettings)) {
	c := w.db.Client
	st := domain.DefaultTenantSettings()
	for _, o := range opts {
		o(&st)
	}
	sys := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	require.NoError(t, c.Tenant.Create().SetID(demo.TenantID).SetName(demo.TenantName).SetSettings(st).Exec(sys))
	require.NoError(t, c.Tenant.Create().SetID("other").SetName("Other").SetSettings(domain.DefaultTenantSettings()).Exec(sys))
	kb := c.KnowledgeBase.Create().SetTenantID(demo.TenantID).SetName("kb").
		SetEmbeddingModel("offline-hash-1024").SetEmbeddingDimensions(1024).SaveX(sys)
	now := time.Now()
	conv := func(user *viewer.Viewer, title string) *ent.Conversation {
		return c.Conversation.Create().SetUserID(user.UserID).SetKnowledgeBaseID(kb.ID).SetTitle(title).
			SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(30 * 24 * time.Hour)).SaveX(as(user))
	}
	w.a = conv(alice, "A")
	w.b = conv(alice, "B")
	w.bobsID = conv(bob, "bob's").ID
}

// keys lists every blob in the store.
func (w *world) keys(t *testing.T) []string {
	keys, err := w.blobs.Keys(context.Background(), "")
	require.NoError(t, err)
	return keys
}

// rows counts every attachment row, as the purge job.
func (w *world) rows(t *testing.T) int {
	n, err := w.db.Client.Attachment.Query().Count(viewer.SystemJobContext(context.Background(), viewer.JobPurge))
	require.NoError(t, err)
	return n
}

// docx builds a minimal DOCX holding paragraphs.
func docx(t *testing.T, paragraphs ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	f, err := zw.Create("word/document.xml")
	require.NoError(t, err)
	body := `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`
	for _, p := range paragraphs {
		body += `<w:p><w:r><w:t>` + p + `</w:t></w:r></w:p>`
	}
	body += `</w:body></w:document>`
	_, err = f.Write([]byte(body))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}
