// Package attachmentsetup builds the attachment service from the
// configuration, for the composition roots (cmd/ragchat/wire.go and the
// server tests' harness): the blob store, the scanner, the processing
// pool and its sandbox, and the upload rate.
package attachmentsetup

import (
	"context"
	"log/slog"
	"time"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/attachment/clamd"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
)

// Deps is what the attachment service is given besides its configuration.
type Deps struct {
	// Notify hears every state an attachment enters (the feed's
	// AttachmentChanged publishes ATTACHMENT_UPDATED, internal/feed).
	Notify func(ctx context.Context, a *ent.Attachment)
	// Embedder embeds READY attachments' chunks, with the model that
	// embeds questions.
	Embedder llm.Embedder
	// Logger is optional.
	Logger *slog.Logger
}

// New builds the attachment service on db: the blob store
// (the bucket at cfg.BlobURL, else the filesystem under cfg.BlobDir), the
// clamd scanner when cfg.ClamdAddr is set, the processing pool, the
// extraction limits, the PDF sandbox when cfg.Sandbox is on and the
// binary gave its command, and the upload rate metered in the database.
// It starts the pool (and with it the recovery of files other instances
// left in processing); the server's Shutdown stops it (Service.Shutdown).
// d says whom it tells of each state and which model embeds the chunks;
// the caller adds the service's orphan blob sweep to the engine's purge
// (Service.SweepOrphans).
func New(db *store.DB, cfg config.Attachments, d Deps) (*attachment.Service, error) {
	log := d.Logger
	var (
		blobs blobstore.Store
		err   error
	)
	if cfg.BlobURL != "" {
		blobs, err = blobstore.OpenURL(context.Background(), cfg.BlobURL)
	} else {
		blobs, err = blobstore.NewFS(cfg.BlobDir)
	}
	if err != nil {
		return nil, err
	}
	opts := attachment.Options{
		Postgres: db.Dialect == dialect.Postgres,
		Logger:   log,
		Limits:   attachment.Limits{MaxTextBytes: cfg.MaxTextBytes, MaxPDFPages: cfg.MaxPDFPages},
		Workers:  cfg.Workers,
		Queue:    cfg.Queue,
		Deadline: cfg.Deadline,
		Lease:    cfg.Lease,
		// Every instance looks for files left by stopped ones twice a
		// lease.
		RecoverEvery: cfg.Lease / 2,
		Limiter:      askrate.NewDBLimiter(db, time.Now),
		UploadRate: askrate.Rate{
			PerMinute: cfg.UploadRatePerMinute, Burst: cfg.UploadBurst,
		},
	}
	if opts.UploadRate.Burst == 0 {
		opts.UploadRate = attachment.DefaultUploadRate
	}
	if cfg.Sandbox && len(cfg.SandboxCommand) > 0 {
		opts.Sandbox = &attachment.Sandbox{Command: cfg.SandboxCommand, MemoryBytes: int64(cfg.SandboxMemoryBytes)}
	}
	opts.Notify, opts.Embedder = d.Notify, d.Embedder
	if cfg.ClamdAddr != "" {
		opts.Scanner = clamd.New(cfg.ClamdAddr)
	}
	svc := attachment.New(db.Client, blobs, opts)
	svc.Start()
	return svc, nil
}
