package server_test

import (
	"testing"

	"entgo.io/ent/dialect"

	"github.com/ragchat/ragchat/internal/server/servertest"
	"github.com/ragchat/ragchat/internal/testdb"
)

// sqlite is a fresh SQLite backend. Transport behaviour does not depend on
// the database, so most tests here run on SQLite; the end-to-end suite
// (cmd/ragchat) runs everything on PostgreSQL.
func sqlite(t testing.TB) testdb.Backend {
	return testdb.Backend{Name: "sqlite", Dialect: dialect.SQLite, Driver: testdb.SQLiteDriver, DSN: testdb.SQLiteDSN(t)}
}

// start runs an in-process server on SQLite.
func start(t testing.TB, o servertest.Options) *servertest.Harness {
	t.Helper()
	return servertest.Start(t, sqlite(t), o)
}

// Short names for the shared flow helpers.
var (
	ctxT               = servertest.Ctx
	mustDo             = servertest.MustDo
	errorCode          = servertest.ErrorCode
	createConversation = servertest.CreateConversation
	ask                = servertest.Ask
	waitDone           = servertest.WaitDone
	collectEvents      = servertest.CollectEvents
	checkStream        = servertest.CheckStream
	closeCode          = servertest.CloseCode
)

const attemptEventsQuery = servertest.AttemptEventsQuery
