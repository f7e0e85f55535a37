// Package attachment holds the engine of conversation attachments
// (docs/ENGINE.md, "Attachments"): files a conversation's owner uploads
// into that one conversation. It sniffs the type from the bytes, checks the
// tenant's limits before anything is stored, keeps the bytes in a blob
// store (internal/blobstore), scans them when a scanner is configured
// (internal/attachment/clamd) and extracts their text.
package attachment
