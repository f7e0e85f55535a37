// Package attachment holds the engine of conversation attachments
// (internal/attachment/README.md): files a conversation's owner uploads
// into that one conversation. It sniffs the type from the bytes, checks the
// tenant's limits and the owner's upload rate before anything is stored,
// keeps the bytes in a blob store (internal/blobstore), and processes them
// in the background in a bounded pool of workers: it scans them when a
// scanner is configured (internal/attachment/clamd), extracts their text
// within stated bounds (a PDF's in a sandboxed child process when one is
// configured) and chunks and embeds it. Files whose processing an
// instance lost are taken over by any instance once their lease expires.
package attachment
