// Package blobstoretest opens blob stores for tests: an S3 bucket on an
// in-process S3-protocol server (gofakes3), reached through the same
// gocloud.dev s3blob driver as a real bucket.
package blobstoretest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/ragchat/ragchat/internal/blobstore"
)

// FakeS3 opens the bucket "attachments" on a fresh in-process S3 server,
// closed with the test. It sets the AWS environment for the test (static
// test credentials, no shared files, no instance metadata), so tests that
// use it cannot run in parallel.
func FakeS3(t testing.TB) *blobstore.Bucket {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("attachments"); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(ts.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	s, err := blobstore.OpenURL(context.Background(),
		"s3://attachments?endpoint="+ts.URL+"&region=us-east-1&use_path_style=true&disable_https=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
