package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/testdb"
)

// TestOpenUnreachable: a database that never answers gives a clear error
// after the wait timeout, with the password redacted.
func TestOpenUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now

	dsn := fmt.Sprintf("postgres://ragchat:s3cret@%s/ragchat?sslmode=disable&connect_timeout=1", addr)
	_, err = store.Open(context.Background(), store.Config{DatabaseURL: dsn, WaitTimeout: 500 * time.Millisecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreachable")
	assert.NotContains(t, err.Error(), "s3cret")
}

// TestOpenWithoutVectorExtension: a database without the vector extension
// is refused with an actionable message unless migrations install it.
func TestOpenWithoutVectorExtension(t *testing.T) {
	base := testdb.PostgresURL(t)
	t.Run("postgres", func(t *testing.T) {
		admin, err := sql.Open("postgres", base)
		require.NoError(t, err)
		defer admin.Close()
		name := fmt.Sprintf("novec_%d", time.Now().UnixNano())
		_, err = admin.Exec("CREATE DATABASE " + name + " TEMPLATE template0")
		require.NoError(t, err)
		t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
		u, err := url.Parse(base)
		require.NoError(t, err)
		u.Path = "/" + name

		_, err = store.Open(context.Background(), store.Config{DatabaseURL: u.String()})
		require.Error(t, err)
		assert.True(t, strings.Contains(err.Error(), "migrate up"), "the error says what to do: %v", err)

		db, err := store.Open(context.Background(), store.Config{DatabaseURL: u.String(), Migrate: true})
		require.NoError(t, err, "migrations install the extension")
		require.NoError(t, db.Close())
	})
}
