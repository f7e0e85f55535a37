package attachment

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/attachment/clamd"
	"github.com/ragchat/ragchat/internal/blobstore"
	"github.com/ragchat/ragchat/internal/defaults"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// kind names an attachment in NOT_FOUND errors.
const kind = "attachment"

// maxNameChars bounds the file name a client gives.
const maxNameChars = 255

// The failure codes of a FAILED attachment.
const (
	FailureInfected           = "INFECTED"
	FailureScannerUnavailable = "SCANNER_UNAVAILABLE"
	FailureNoText             = "NO_TEXT"
	FailureTooManyPages       = "TOO_MANY_PAGES"
	FailureProcessing         = "PROCESSING_FAILED"
	FailureTimeout            = "PROCESSING_TIMEOUT"
	FailureInterrupted        = "PROCESSING_INTERRUPTED"
)

// A Scanner checks bytes for malware. clamd.Client is one. An error means
// the scan did not happen; the attachment then FAILS (fail closed).
type Scanner interface {
	Scan(ctx context.Context, r io.Reader) (clamd.Verdict, error)
}

// Options configure a Service.
type Options struct {
	// Scanner, when not nil, scans every upload before it is READY.
	Scanner Scanner
	// Logger receives blob deletions that failed (nil: slog.Default()).
	Logger *slog.Logger
	// Notify, when set, hears every state an attachment enters (the
	// conversation's stream and owner's viewer feed:
	// feed.Service.AttachmentChanged).
	Notify func(ctx context.Context, a *ent.Attachment)
	// Embedder, when set, embeds a READY attachment's chunks (the model
	// the knowledge service uses), so that asks in its conversation
	// retrieve them (Search); nil stores no chunks.
	Embedder llm.Embedder
	// Counter sizes the chunks (nil: tokens.Default()).
	Counter tokens.Counter
	// Postgres says the client is on PostgreSQL, where the limits are
	// made exact with an advisory lock per owner (insert.go); on SQLite
	// the immediate write transaction already serialises uploads.
	Postgres bool
	// Limits bound each file's text extraction (0 fields:
	// DefaultLimits).
	Limits Limits
	// Sandbox, when set, extracts the text of PDFs in a child process
	// that a deadline kills and whose memory is capped (sandbox.go);
	// nil extracts in this process.
	Sandbox *Sandbox
	// Workers bounds the files this instance processes at once (0:
	// DefaultWorkers()); Queue the uploads waiting for a worker (0:
	// DefaultQueue), past which an upload is refused with UNAVAILABLE.
	Workers, Queue int
	// Deadline bounds one processing attempt of one file (0:
	// DefaultDeadline).
	Deadline time.Duration
	// Lease is how long an instance holds an attachment it queued or
	// processes without renewing it (0: DefaultLease); past it, any
	// instance takes the attachment over (Recover).
	Lease time.Duration
	// RecoverEvery is how often this instance runs Recover (0:
	// DefaultRecoverEvery; negative: never, for tests that call it).
	RecoverEvery time.Duration
	// Limiter meters each user's uploads at UploadRate (upload.go); nil
	// meters nothing.
	Limiter    askrate.Limiter
	UploadRate askrate.Rate
	// Now is the clock of leases (nil: time.Now).
	Now func() time.Time
}

// Service uploads, reads and processes attachments under the Ent privacy
// rules, and keeps their bytes in a blob store.
type Service struct {
	client *ent.Client
	blobs  blobstore.Store
	opts   Options
	pool   *pool
}

// New returns a service over client and blobs, and registers on client the
// hook that deletes an attachment's bytes when its conversation's rows are
// deleted (purge.go). Its processing pool starts with Start or the first
// upload; Shutdown stops it.
func New(client *ent.Client, blobs blobstore.Store, opts Options) *Service {
	opts.Logger = defaults.Logger(opts.Logger)
	opts.Workers = defaults.Positive(opts.Workers, DefaultWorkers())
	opts.Queue = defaults.Positive(opts.Queue, DefaultQueue)
	opts.Deadline = defaults.Positive(opts.Deadline, DefaultDeadline)
	opts.Lease = defaults.Positive(opts.Lease, DefaultLease)
	opts.RecoverEvery = cmp.Or(opts.RecoverEvery, DefaultRecoverEvery)
	opts.Now = defaults.Clock(opts.Now)
	opts.Limits = opts.Limits.withDefaults()
	s := &Service{client: client, blobs: blobs, opts: opts}
	s.pool = newPool(s)
	client.Conversation.Use(s.deleteBlobsWithConversation())
	return s
}

// Start starts the processing pool: its workers, the renewal of its
// leases and the recovery of expired leases of every instance (at once,
// then every Options.RecoverEvery). The first upload starts it too.
func (s *Service) Start() { s.pool.run() }

// Shutdown stops the processing pool: running attempts are cancelled and
// queued jobs released, all left for Recover on any instance without
// counting as an attempt. It waits for the workers until ctx ends.
func (s *Service) Shutdown(ctx context.Context) error { return s.pool.shutdown(ctx) }

// now is the service's clock.
func (s *Service) now() time.Time { return s.opts.Now() }

// Upload stores data as an attachment of the viewer's own conversation
// convID and queues it for processing (process): the returned attachment
// is UPLOADED, and each state it then enters is reported through
// Options.Notify (the owner's ATTACHMENT_UPDATED events). The request
// never waits for the processing, and a client that goes away after
// Upload returned changes nothing. Before anything is stored it takes
// one upload of the viewer's rate (RATE_LIMITED), checks, in this order,
// the file size, the conversation's file count and the owner's total
// bytes against the tenant's limits (BAD_USER_INPUT with
// extensions.limit), the type sniffed from the bytes (Sniff) and a place
// in this instance's processing queue (UNAVAILABLE with limit
// attachmentQueue when it is full). The limits are checked again,
// exactly, in the transaction that inserts the row (insert.go): of
// concurrent uploads only those that fit are kept, and a refused one's
// bytes are deleted. A conversation that is not the viewer's own is
// NOT_FOUND, exactly like an unknown one.
func (s *Service) Upload(ctx context.Context, convID uuid.UUID, name string, data []byte) (*ent.Attachment, error) {
	v := viewer.FromContext(ctx)
	if v == nil {
		return nil, domain.Errorf(domain.CodeUnauthenticated, "sign in to upload files")
	}
	name, err := cleanName(name)
	if err != nil {
		return nil, err
	}
	conv, err := s.client.Conversation.Get(ctx, convID)
	if ent.IsNotFound(err) || (err == nil && conv.UserID != v.UserID) {
		return nil, domain.NotFound("conversation")
	}
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if err := s.takeUpload(ctx, v); err != nil {
		return nil, err
	}
	if err := s.checkLimits(ctx, s.client, v, convID, int64(len(data))); err != nil {
		return nil, err
	}
	mediaType, err := Sniff(name, data)
	if err != nil {
		return nil, err
	}
	if !s.pool.reserve() {
		s.giveUpload(ctx, v)
		return nil, queueFull()
	}
	a, err := s.store(ctx, v, conv, name, mediaType, data)
	if err != nil {
		s.pool.unreserve()
		return nil, err
	}
	s.notify(ctx, a)
	s.pool.submit(job{id: a.ID, attempts: a.Attempts})
	return a, nil
}

// store keeps data in the blob store and inserts its row, UPLOADED and
// leased to this instance; a refused insert deletes the blob again.
func (s *Service) store(ctx context.Context, v *viewer.Viewer, conv *ent.Conversation, name, mediaType string, data []byte) (*ent.Attachment, error) {
	sum := sha256.Sum256(data)
	id := uuid.Must(uuid.NewV7())
	key := fmt.Sprintf("attachments/%s/%s/%s", v.TenantID, conv.ID, id)
	if err := s.blobs.Put(ctx, key, bytes.NewReader(data)); err != nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "the file could not be stored; try again")
	}
	a, err := s.insert(ctx, v, func(c *ent.Client) *ent.AttachmentCreate {
		return c.Attachment.Create().SetID(id).SetConversationID(conv.ID).SetOwnerID(conv.UserID).
			SetName(name).SetMediaType(mediaType).SetSize(int64(len(data))).
			SetSha256(hex.EncodeToString(sum[:])).SetBlobKey(key).
			SetLeaseUntil(s.now().Add(s.opts.Lease))
	})
	if err != nil {
		s.deleteBlob(context.WithoutCancel(ctx), key)
		return nil, err
	}
	return a, nil
}

// LimitQueue names the processing queue in UNAVAILABLE errors.
const LimitQueue = "attachmentQueue"

// queueFull is the refusal of an upload when the processing queue is
// full.
func queueFull() error {
	const retry = 5
	return domain.Errorf(domain.CodeUnavailable,
		"too many files are being processed; retry in %d s", retry).
		With("limit", LimitQueue).With("retryAfterSeconds", retry)
}

// cleanName validates the client's file name: 1 to 255 characters of
// valid UTF-8 without control characters, of which only the base name is
// kept.
func cleanName(name string) (string, error) {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(name)
	bad := name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxNameChars ||
		strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f })
	if bad {
		return "", domain.Errorf(domain.CodeBadUserInput,
			"the file name must be 1 to %d printable characters", maxNameChars).With("field", "name")
	}
	return name, nil
}

// Get returns the attachment id if the viewer may read it, else NOT_FOUND.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*ent.Attachment, error) {
	a, err := s.client.Attachment.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, domain.NotFound(kind)
	}
	return a, store.DomainError(err, kind)
}

// List returns the attachments of conversation convID the viewer may
// read, oldest first.
func (s *Service) List(ctx context.Context, convID uuid.UUID) ([]*ent.Attachment, error) {
	as, err := s.client.Attachment.Query().Where(attachment.ConversationID(convID)).
		Order(ent.Asc(attachment.FieldCreatedAt), ent.Asc(attachment.FieldID)).All(ctx)
	return as, store.DomainError(err, kind)
}

// Content returns the bytes of attachment id if the viewer may read it.
func (s *Service) Content(ctx context.Context, id uuid.UUID) ([]byte, error) {
	a, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	b, err := s.blobs.Get(ctx, a.BlobKey)
	if errors.Is(err, blobstore.ErrNotFound) {
		return nil, domain.NotFound(kind)
	}
	if err != nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "the file could not be read; try again")
	}
	return b, nil
}

// notify reports a's new state to Options.Notify.
func (s *Service) notify(ctx context.Context, a *ent.Attachment) {
	if s.opts.Notify != nil {
		s.opts.Notify(ctx, a)
	}
}

// deleteBlob removes key from the blob store, logging a failure (an
// orphaned blob holds bytes no row names; it is never served).
func (s *Service) deleteBlob(ctx context.Context, key string) {
	if err := s.blobs.Delete(ctx, key); err != nil {
		s.opts.Logger.Warn("attachment: blob delete failed", "key", key, "err", err)
	}
}
