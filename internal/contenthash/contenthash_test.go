package contenthash_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ragchat/ragchat/internal/contenthash"
)

// TestOf pins the hash to SHA-256 hex of the UTF-8 bytes, the value the
// PostgreSQL backfill computes.
func TestOf(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, contenthash.Of(c.in), c.in)
	}
}
