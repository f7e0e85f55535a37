package testdb_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/testdb"
)

// TestClusterStopStart: a private cluster answers, is unreachable while
// stopped, and answers again on the same URL after a restart, with its
// data and pgvector intact.
func TestClusterStopStart(t *testing.T) {
	c := testdb.StartCluster(t)
	db, err := sql.Open("postgres", c.Database())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE TABLE v (e vector(3)); INSERT INTO v VALUES ('[1,2,3]')"); err != nil {
		t.Fatal(err)
	}
	c.Stop()
	if err := db.PingContext(ctx); err == nil {
		t.Fatal("the stopped cluster answered")
	}
	c.Start()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM v WHERE e <=> '[1,2,4]' < 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after restart: n=%d err=%v", n, err)
	}
}
