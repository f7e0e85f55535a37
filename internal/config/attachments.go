package config

import (
	"path/filepath"
	"time"
)

// Attachments configures conversation attachments (docs/API.md,
// "Attachments"). The per-tenant limits are tenant settings; these are the
// server's own.
type Attachments struct {
	// BlobDir is the local blob store's root (RAGCHAT_BLOB_DIR, default
	// $RAGCHAT_DATA_DIR/blobs).
	BlobDir string
	// BlobURL, when set, stores the bytes in this bucket instead
	// (RAGCHAT_BLOB_URL, e.g. "s3://bucket?region=eu-central-1" or an
	// S3-compatible store's "s3://bucket?endpoint=…&use_path_style=true";
	// internal/blobstore.OpenURL).
	BlobURL string
	// ClamdAddr, when set, scans every upload with the clamd at this
	// address ("tcp:host:port", "unix:/path" or "host:port";
	// RAGCHAT_CLAMD_ADDR). Empty turns scanning off.
	ClamdAddr string
	// MaxUploadBytes caps one upload request's body on the upload paths
	// (RAGCHAT_MAX_UPLOAD_BYTES, default 32 MiB); the tenant's per-file
	// limit applies within it.
	MaxUploadBytes int
	// Workers bounds the files an instance processes at once
	// (RAGCHAT_ATTACHMENT_WORKERS; 0, the default: a quarter of
	// GOMAXPROCS, at least one) and Queue the uploads waiting for one
	// (RAGCHAT_ATTACHMENT_QUEUE, default 16; a full queue refuses uploads
	// with UNAVAILABLE).
	Workers, Queue int
	// Deadline bounds one processing attempt of one file
	// (RAGCHAT_ATTACHMENT_DEADLINE, default 2m).
	Deadline time.Duration
	// Lease is how long an instance holds a file it queued or processes
	// between renewals (RAGCHAT_ATTACHMENT_LEASE, default 1m): once an
	// instance stopped, its files are taken over by another (or by
	// itself after a restart) within about one and a half leases.
	Lease time.Duration
	// MaxTextBytes bounds the text indexed of one file
	// (RAGCHAT_ATTACHMENT_MAX_TEXT_BYTES, default 4 MiB), MaxPDFPages the
	// pages of a PDF's page tree (RAGCHAT_ATTACHMENT_MAX_PDF_PAGES,
	// default 2000).
	MaxTextBytes, MaxPDFPages int
	// Sandbox extracts the text of PDFs in a child process of the
	// server's own binary, killed at the deadline
	// (RAGCHAT_ATTACHMENT_SANDBOX, default on), whose address space may
	// grow by SandboxMemoryBytes (RAGCHAT_ATTACHMENT_SANDBOX_MEMORY,
	// default 512 MiB). SandboxCommand is that child's command line,
	// which the ragchat binary sets (not an environment variable); the
	// sandbox is used only when it is set.
	Sandbox            bool
	SandboxMemoryBytes int
	SandboxCommand     []string
	// UploadRatePerMinute and UploadBurst meter each user's uploads
	// across every instance on the database
	// (RAGCHAT_UPLOAD_RATE_PER_MINUTE, default 20;
	// RAGCHAT_UPLOAD_BURST, default 10).
	UploadRatePerMinute float64
	UploadBurst         int
}

// loadAttachments reads the attachment settings.
func loadAttachments(e *env, dataDir string) Attachments {
	return Attachments{
		BlobDir:             e.str("RAGCHAT_BLOB_DIR", filepath.Join(dataDir, "blobs")),
		BlobURL:             e.str("RAGCHAT_BLOB_URL", ""),
		ClamdAddr:           e.str("RAGCHAT_CLAMD_ADDR", ""),
		MaxUploadBytes:      e.integer("RAGCHAT_MAX_UPLOAD_BYTES", 32<<20, 1024),
		Workers:             e.integer("RAGCHAT_ATTACHMENT_WORKERS", 0, 0),
		Queue:               e.integer("RAGCHAT_ATTACHMENT_QUEUE", 16, 1),
		Deadline:            e.positive("RAGCHAT_ATTACHMENT_DEADLINE", 2*time.Minute),
		Lease:               e.positive("RAGCHAT_ATTACHMENT_LEASE", time.Minute),
		MaxTextBytes:        e.integer("RAGCHAT_ATTACHMENT_MAX_TEXT_BYTES", 4<<20, 1024),
		MaxPDFPages:         e.integer("RAGCHAT_ATTACHMENT_MAX_PDF_PAGES", 2000, 1),
		Sandbox:             e.boolean("RAGCHAT_ATTACHMENT_SANDBOX", true),
		SandboxMemoryBytes:  e.integer("RAGCHAT_ATTACHMENT_SANDBOX_MEMORY", 512<<20, 64<<20),
		UploadRatePerMinute: e.float("RAGCHAT_UPLOAD_RATE_PER_MINUTE", 20),
		UploadBurst:         e.integer("RAGCHAT_UPLOAD_BURST", 10, 1),
	}
}
