package blobstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/blobstore"
)

// stores returns every Store implementation under test, fresh.
func stores(t *testing.T) map[string]blobstore.Store {
	fs, err := blobstore.NewFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]blobstore.Store{"fs": fs}
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
