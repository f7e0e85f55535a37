package config

import "path/filepath"

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
}

// loadAttachments reads the attachment settings.
func loadAttachments(e *env, dataDir string) Attachments {
	return Attachments{
		BlobDir:        e.str("RAGCHAT_BLOB_DIR", filepath.Join(dataDir, "blobs")),
		BlobURL:        e.str("RAGCHAT_BLOB_URL", ""),
		ClamdAddr:      e.str("RAGCHAT_CLAMD_ADDR", ""),
		MaxUploadBytes: e.integer("RAGCHAT_MAX_UPLOAD_BYTES", 32<<20, 1024),
	}
}
