package gqlclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// The WebSocket subprotocols.
const (
	// ProtocolTransportWS is graphql-transport-ws (the graphql-ws library).
	ProtocolTransportWS = "graphql-transport-ws"
	// ProtocolLegacyWS is the legacy subscriptions-transport-ws protocol.
	ProtocolLegacyWS = "graphql-ws"
)

// WSOptions tune DialWS.
type WSOptions struct {
	// Protocol is ProtocolTransportWS (default) or ProtocolLegacyWS.
	Protocol string
	// Payload replaces the connection_init payload (default
	// {"Authorization": "Bearer <token>"}).
	Payload map[string]any
	// Header is sent with the upgrade request.
	Header http.Header
}

// HandshakeError is a refused WebSocket upgrade.
type HandshakeError struct {
	Status int
	Err    error
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("websocket handshake: HTTP %d: %v", e.Status, e.Err)
}

// WS is one WebSocket connection carrying any number of subscriptions.
type WS struct {
	conn  *websocket.Conn
	proto string

	wmu sync.Mutex

	mu     sync.Mutex
	subs   map[string]*Subscription
	nextID int
	err    error

	done chan struct{}
}

// DialWS connects, sends connection_init and waits for connection_ack. A
// refused init returns the server's *websocket.CloseError (code 4403 for a
// bad token).
func (c *Client) DialWS(ctx context.Context, opts WSOptions) (*WS, error) {
	proto := opts.Protocol
	if proto == "" {
		proto = ProtocolTransportWS
	}
	u := "ws" + strings.TrimPrefix(c.URL, "http")
	d := websocket.Dialer{NetDialContext: c.countingDialer(), Subprotocols: []string{proto}, HandshakeTimeout: 10 * time.Second}
	hdr := http.Header{}
	for k, v := range opts.Header {
		hdr[k] = v
	}
	if c.Origin != "" {
		hdr.Set("Origin", c.Origin)
	}
	conn, res, err := d.DialContext(ctx, u, hdr)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
			res.Body.Close()
		}
		return nil, &HandshakeError{Status: status, Err: err}
	}
	w := &WS{conn: conn, proto: proto, subs: make(map[string]*Subscription), done: make(chan struct{})}
	payload := opts.Payload
	if payload == nil {
		payload = map[string]any{}
		if c.Token != "" {
			payload["Authorization"] = "Bearer " + c.Token
		}
	}
	if err := w.send(map[string]any{"type": "connection_init", "payload": payload}); err != nil {
		conn.Close()
		return nil, err
	}
	if err := w.awaitAck(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	go w.readLoop()
	return w, nil
}

// awaitAck reads until connection_ack, or returns the close error.
func (w *WS) awaitAck(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = w.conn.SetReadDeadline(deadline)
	defer w.conn.SetReadDeadline(time.Time{})
	for {
		_, data, err := w.conn.ReadMessage()
		if err != nil {
			return err
		}
		var m struct{ Type string }
		_ = json.Unmarshal(data, &m)
		switch m.Type {
		case "connection_ack":
			return nil
		case "ka", "ping", "pong":
		case "connection_error":
			// The legacy protocol reports the refusal before closing;
			// the close frame follows.
		default:
			return fmt.Errorf("gqlclient: unexpected %q before connection_ack", m.Type)
		}
	}
}

func (w *WS) send(v any) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	_ = w.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return w.conn.WriteJSON(v)
}

// readLoop dispatches messages to subscriptions until the connection ends.
func (w *WS) readLoop() {
	defer close(w.done)
	for {
		_, data, err := w.conn.ReadMessage()
		if err != nil {
			w.fail(err)
			return
		}
		var m struct {
			ID      string          `json:"id"`
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		switch m.Type {
		case "next", "data":
			var r Response
			if json.Unmarshal(m.Payload, &r) == nil {
				if s := w.sub(m.ID); s != nil {
					s.push(&r)
				}
			}
		case "error":
			var errs []Error
			if json.Unmarshal(m.Payload, &errs) != nil {
				var one Error
				_ = json.Unmarshal(m.Payload, &one)
				errs = []Error{one}
			}
			if s := w.remove(m.ID); s != nil {
				s.push(&Response{Errors: errs})
				s.finish(nil)
			}
		case "complete":
			if s := w.remove(m.ID); s != nil {
				s.finish(nil)
			}
		case "ping":
			_ = w.send(map[string]any{"type": "pong"})
		}
	}
}

func (w *WS) sub(id string) *Subscription {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.subs[id]
}

func (w *WS) remove(id string) *Subscription {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.subs[id]
	delete(w.subs, id)
	return s
}

// fail ends every subscription with err.
func (w *WS) fail(err error) {
	w.mu.Lock()
	w.err = err
	subs := w.subs
	w.subs = map[string]*Subscription{}
	w.mu.Unlock()
	for _, s := range subs {
		s.finish(err)
	}
}

// Subscribe starts an operation (usually a subscription; queries and
// mutations work too) on the connection.
func (w *WS) Subscribe(query string, vars map[string]any) (*Subscription, error) {
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return nil, err
	}
	w.nextID++
	id := strconv.Itoa(w.nextID)
	startType, stopType := "subscribe", "complete"
	if w.proto == ProtocolLegacyWS {
		startType, stopType = "start", "stop"
	}
	s := newSubscription(func() {
		if w.remove(id) != nil {
			_ = w.send(map[string]any{"id": id, "type": stopType})
		}
	})
	w.subs[id] = s
	w.mu.Unlock()
	err := w.send(map[string]any{"id": id, "type": startType, "payload": Request{Query: query, Variables: vars}})
	if err != nil {
		w.remove(id)
		return nil, err
	}
	return s, nil
}

// Err is the error that ended the connection (a *websocket.CloseError when
// the server closed it), or nil while it is open.
func (w *WS) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Done is closed when the connection has ended.
func (w *WS) Done() <-chan struct{} { return w.done }

// CloseCode is the close code the server sent, or 0.
func (w *WS) CloseCode() int {
	var ce *websocket.CloseError
	if errors.As(w.Err(), &ce) {
		return ce.Code
	}
	return 0
}

// Close closes the connection normally and waits for its reader to end.
func (w *WS) Close() {
	w.wmu.Lock()
	_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	w.wmu.Unlock()
	select {
	case <-w.done:
	case <-time.After(2 * time.Second):
	}
	_ = w.conn.Close()
	<-w.done
}

// Drop closes the TCP connection abruptly, as a network failure would.
func (w *WS) Drop() {
	_ = w.conn.Close()
	<-w.done
}
