package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// IsTransient reports whether a database error is worth retrying later:
// the connection or the server is gone for now, or the statement lost a
// race it can win next time (docs/ENGINE.md, "Failure and recovery"). It
// classifies by type and code, never by message text:
//
//   - connection failures: driver.ErrBadConn, sql.ErrConnDone, network
//     errors (refused, reset, broken pipe, timeouts) and a connection closed
//     mid-reply (io.EOF, io.ErrUnexpectedEOF);
//   - PostgreSQL SQLSTATEs: class 08 (connection exception), class 53
//     (insufficient resources), 57P01–57P03 (administrator or crash
//     shutdown, cannot connect now), 40001 and 40P01 (serialization
//     failure, deadlock) and 55P03 (lock not available);
//   - SQLite: SQLITE_BUSY and SQLITE_LOCKED, with their extended codes.
//
// A per-statement deadline that expired (context.DeadlineExceeded) is
// transient too; a cancelled context is not: someone gave up.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return transientSQLState(string(pqErr.Code))
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		switch liteErr.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
		return false
	}
	var netErr net.Error
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case errors.Is(err, context.DeadlineExceeded):
		return true
	case errors.As(err, &netErr):
		return true
	}
	return false
}

// transientSQLState reports whether a PostgreSQL SQLSTATE names a
// condition that goes away by itself.
func transientSQLState(code string) bool {
	if len(code) != 5 {
		return false
	}
	switch code[:2] {
	case "08", // connection exception
		"53": // insufficient resources (disk full, out of memory, too many connections)
		return true
	}
	switch code {
	case "57P01", // admin_shutdown
		"57P02", // crash_shutdown
		"57P03", // cannot_connect_now (starting up, shutting down)
		"40001", // serialization_failure
		"40P01", // deadlock_detected
		"55P03": // lock_not_available
		return true
	}
	return false
}
