package attachment_test

import (
	"archive/zip"
	"bytes"
	"context"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
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
	db     *store.DB
	blobs  *blobstore.FS
	svc    *attachment.Service
	a, b   *ent.Conversation
	bobsID uuid.UUID
}

// forEach runs fn on both backends with a fresh world; opts edit the demo
// tenant's settings.
func forEach(t *testing.T, scanner attachment.Scanner, fn func(t *testing.T, w *world), opts ...func(*domain.TenantSettings)) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		blobs, err := blobstore.NewFS(t.TempDir())
		require.NoError(t, err)
		w := &world{db: db, blobs: blobs}
		w.svc = attachment.New(db.Client, blobs, attachment.Options{Scanner: scanner, Postgres: db.Dialect == dialect.Postgres})
		w.seed(t, opts...)
		fn(t, w)
	})
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
