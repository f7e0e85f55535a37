package server

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
)

// wsWriteTimeout bounds one WebSocket write, so that a client that stops
// reading cannot block the connection's writers forever.
const wsWriteTimeout = 10 * time.Second

// errShuttingDown refuses upgrades once shutdown has begun.
var errShuttingDown = errors.New("server shutting down")

// gorillaWebsocket upgrades WebSocket requests with
// github.com/gorilla/websocket for websocketTransport (graphql-transport-ws)
// and gqlgen's transport (the legacy graphql-ws protocol), and keeps the
// registry of open connections that shutdown closes. Upgrades are checked
// against the origin policy; there is no accept-everything mode.
type gorillaWebsocket struct {
	upgrader websocket.Upgrader
	metrics  *Metrics

	mu     sync.Mutex
	conns  map[*gorillaConn]struct{}
	closed bool
}

var _ transport.WebsocketImplementation = (*gorillaWebsocket)(nil)

// newGorillaWebsocket returns the adapter. Write buffers come from a shared
// pool, so an idle connection holds no write buffer, and its read buffer
// is small.
func newGorillaWebsocket(origins *originPolicy, metrics *Metrics) *gorillaWebsocket {
	return &gorillaWebsocket{
		upgrader: websocket.Upgrader{
			HandshakeTimeout: 10 * time.Second,
			// Client messages are small (a subscribe is a few hundred
			// bytes); a longer one is read through in several calls. Each
			// idle connection holds this buffer.
			ReadBufferSize:  256,
			WriteBufferSize: 4096,
			WriteBufferPool: &sync.Pool{},
			CheckOrigin:     origins.checkWebSocket,
		},
		metrics: metrics,
		conns:   make(map[*gorillaConn]struct{}),
	}
}

// Accept upgrades the request, negotiating one of gqlgen's subprotocols.
func (g *gorillaWebsocket) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	up := g.upgrader
	up.Subprotocols = opts.Subprotocols
	conn, err := up.Upgrade(w, r, opts.ResponseHeader)
	if err != nil {
		return nil, err
	}
	c := &gorillaConn{conn: conn, owner: g}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		_ = c.WriteClose(websocket.CloseServiceRestart, "server shutting down")
		_ = conn.Close()
		return nil, errShuttingDown
	}
	g.conns[c] = struct{}{}
	g.mu.Unlock()
	g.metrics.wsConnections.Inc()
	return c, nil
}

// forget removes a closed connection from the registry.
func (g *gorillaWebsocket) forget(c *gorillaConn) {
	g.mu.Lock()
	_, ok := g.conns[c]
	delete(g.conns, c)
	g.mu.Unlock()
	if ok {
		g.metrics.wsConnections.Dec()
	}
}

// closeAll closes every open connection with code 1012 (service restart),
// which graphql-ws clients treat as retryable: they reconnect (to another
// instance) and resubscribe. Later upgrades are refused.
func (g *gorillaWebsocket) closeAll() {
	g.mu.Lock()
	g.closed = true
	conns := make([]*gorillaConn, 0, len(g.conns))
	for c := range g.conns {
		conns = append(conns, c)
	}
	g.mu.Unlock()
	for _, c := range conns {
		_ = c.WriteClose(websocket.CloseServiceRestart, "server shutting down")
		_ = c.Close()
	}
}

// open reports the number of open connections.
func (g *gorillaWebsocket) open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

// gorillaConn is one upgraded connection. Its user serialises writes
// (websocketTransport and gqlgen each with their own lock); control frames
// (close) are safe concurrently in gorilla.
type gorillaConn struct {
	conn  *websocket.Conn
	owner *gorillaWebsocket
}

var (
	_ transport.WebsocketConn          = (*gorillaConn)(nil)
	_ transport.WebsocketReadLimiter   = (*gorillaConn)(nil)
	_ transport.WebsocketReadDeadliner = (*gorillaConn)(nil)
)

// NextReader returns the next data message; a normal close by the peer is
// transport.ErrWebsocketClosed.
func (c *gorillaConn) NextReader() (int, io.Reader, error) {
	mt, r, err := c.conn.NextReader()
	if err != nil {
		if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseNoStatusReceived, websocket.CloseGoingAway) {
			return mt, nil, transport.ErrWebsocketClosed
		}
		return mt, nil, err
	}
	return mt, r, nil
}

// WriteJSON writes one JSON message with a write deadline.
func (c *gorillaConn) WriteJSON(v any) error {
	if err := c.conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout)); err != nil {
		return err
	}
	return c.conn.WriteJSON(v)
}

// WriteClose sends a close frame with code and reason.
func (c *gorillaConn) WriteClose(code int, reason string) error {
	msg := websocket.FormatCloseMessage(code, truncateCloseReason(reason))
	err := c.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
	if errors.Is(err, websocket.ErrCloseSent) {
		return nil
	}
	return err
}

// Close closes the underlying connection.
func (c *gorillaConn) Close() error {
	c.owner.forget(c)
	return c.conn.Close()
}

// Subprotocol is the negotiated subprotocol.
func (c *gorillaConn) Subprotocol() string { return c.conn.Subprotocol() }

// SetReadLimit bounds incoming message size; a larger message closes the
// connection with 1009 (message too big).
func (c *gorillaConn) SetReadLimit(limit int64) { c.conn.SetReadLimit(limit) }

// SetReadDeadline sets the read deadline (ping/pong liveness).
func (c *gorillaConn) SetReadDeadline(t time.Time) error { return c.conn.SetReadDeadline(t) }

// truncateCloseReason keeps a close reason within the 123 bytes a close
// frame allows.
func truncateCloseReason(s string) string {
	const max = 123
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}
