package server_test

import (
	"bytes"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// serverConnGoroutines counts the goroutines running the server's side of
// graphql-transport-ws connections, and among them those still inside the
// HTTP handler that upgraded them.
func serverConnGoroutines(t *testing.T) (conn, inHandler int) {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 2); err != nil {
		t.Fatal(err)
	}
	for _, g := range strings.Split(buf.String(), "\n\n") {
		if !strings.Contains(g, "internal/server.(*twsConn)") {
			continue
		}
		conn++
		stack, _, _ := strings.Cut(g, "\ncreated by ")
		if strings.Contains(stack, "websocketTransport).Do") {
			inHandler++
		}
	}
	return conn, inHandler
}

// TestIdleWebSocketHoldsOneShallowGoroutine opens acknowledged, idle
// graphql-transport-ws connections with keep-alive pings on and checks,
// by counting goroutines in a profile, that each costs the server exactly
// one goroutine (its reader), started afresh rather than left inside the
// HTTP handler with the stack authentication grew and the request's
// buffers. Before, an idle connection held two (the reader, inside the
// handler, and the ping ticker). Closing them returns the process's
// goroutines to their baseline.
func TestIdleWebSocketHoldsOneShallowGoroutine(t *testing.T) {
	const n = 20
	h := start(t, servertest.Options{})
	c := h.Client(t, "idle")
	// Connections of earlier tests in this process finish their close
	// handshakes first (a hang guard, not a timing assertion).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if conn, _ := serverConnGoroutines(t); conn == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("%d server connection goroutines left by earlier tests", conn)
		}
	}
	baseline := settledGoroutines(c, 0)
	var conns []*gqlclient.WS
	for range n {
		ws, err := c.DialWS(ctxT(t), gqlclient.WSOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, ws)
	}
	// Each handler starts the reader and returns right after writing
	// connection_ack, so a client may see the ack first; wait for every
	// handler to return (a hang guard, not a timing assertion).
	var conn, inHandler int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		conn, inHandler = serverConnGoroutines(t)
		if (conn == n && inHandler == 0) || time.Now().After(deadline) {
			break
		}
	}
	if conn != n || inHandler != 0 {
		t.Fatalf("%d idle connections: %d server goroutines (%d inside the HTTP handler), want %d and 0", n, conn, inHandler, n)
	}
	for _, ws := range conns {
		ws.Close()
	}
	if got := settledGoroutines(c, baseline); got > baseline {
		t.Fatalf("goroutines: %d after closing, baseline %d", got, baseline)
	}
}
