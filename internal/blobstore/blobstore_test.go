package blobstore_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/ragchat/ragchat/internal/blobstore"
)

// stores returns every Store implementation under test, fresh: the
// filesystem, and S3 through gocloud's s3blob against an in-process S3
// server (gofakes3).
func stores(t *testing.T) map[string]blobstore.Store {
	fs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]blobstore.Store{"fs": fs, "s3": fakeS3(t)}
}

// fakeS3 opens a bucket on an in-process S3-protocol server.
func fakeS3(t *testing.T) blobstore.Store {
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
	return s
}

func TestStore(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			defer s.Close()
			if _, err := s.Get(ctx, "a/b/missing"); !errors.Is(err, blobstore.ErrNotFound) {
				t.Fatalf("Get missing: %v", err)
			}
			for _, k := range []string{"a/b/one", "a/b/two", "c/three"} {
				if err := s.Put(ctx, k, strings.NewReader("bytes of "+k)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Get(ctx, "a/b/two")
			if err != nil || string(got) != "bytes of a/b/two" {
				t.Fatalf("Get = %q, %v", got, err)
			}
			keys, err := s.Keys(ctx, "a/")
			if err != nil || len(keys) != 2 {
				t.Fatalf("Keys(a/) = %v, %v", keys, err)
			}
			if err := s.Delete(ctx, "a/b/one"); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, "a/b/one"); err != nil {
				t.Fatalf("second Delete: %v", err)
			}
			if _, err := s.Get(ctx, "a/b/one"); !errors.Is(err, blobstore.ErrNotFound) {
				t.Fatalf("Get deleted: %v", err)
			}
			keys, _ = s.Keys(ctx, "")
			if len(keys) != 2 {
				t.Fatalf("Keys() = %v", keys)
			}
		})
	}
}

func TestFSRefusesEscapingKeys(t *testing.T) {
	s, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"", "../x", "/etc/passwd", `a\b`, "a/../../b"} {
		if err := s.Put(context.Background(), k, strings.NewReader("x")); err == nil {
			t.Errorf("Put(%q) succeeded", k)
		}
	}
}
