package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// closeHandshakeWait bounds the wait for the client's reply to our close
// frame before the TCP connection is closed.
const closeHandshakeWait = time.Second

// websocketTransport serves GraphQL over WebSocket. It upgrades with
// gorillaWebsocket (Origin allow-list, connection registry) and then
// speaks graphql-transport-ws itself, with the close codes that protocol
// defines, which gqlgen's transport does not use (it closes with 1002 or
// 1000): 4400 for a malformed message or one of an unknown type, 4401 for
// subscribe before connection_ack, 4403 when connection_init is refused or
// the token expires, 4408 when connection_init does not come in time, 4409
// for a subscribe whose id is in use and 4429 for a second
// connection_init. The legacy graphql-ws protocol (subscriptions-transport-
// ws), which has no such codes, is handed to gqlgen's transport on the
// connection already upgraded.
type websocketTransport struct {
	impl *gorillaWebsocket
	// legacy serves the graphql-ws subprotocol (and clients that name no
	// subprotocol).
	legacy transport.Websocket
	// init authenticates connection_init (wsInit): the connection's
	// context, or an error whose message is the 4403 close reason.
	init        transport.WebsocketInitFunc
	initTimeout time.Duration
	// keepAlive is the ping interval; a client that answers no ping for
	// two intervals is disconnected.
	keepAlive time.Duration
	readLimit int64
	// stopping reports that the server is shutting down: a subscription
	// ended by the shutdown gets no complete, so that the client
	// resubscribes after the 1012 close that follows.
	stopping func() bool
	onError  func(ctx context.Context, err error)
}

var _ graphql.Transport = (*websocketTransport)(nil)

// Supports implements graphql.Transport: every upgrade request.
func (t *websocketTransport) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") != ""
}

// Do implements graphql.Transport.
func (t *websocketTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	conn, err := t.impl.Accept(w, r, transport.WebsocketAcceptOptions{
		ResponseHeader: http.Header{},
		Subprotocols:   []string{subprotocolLegacyWS, subprotocolTransportWS},
	})
	if err != nil {
		// The upgrader has answered the request (or closed it while
		// shutting down).
		t.onError(r.Context(), err)
		return
	}
	gc := conn.(*gorillaConn)
	if gc.Subprotocol() != subprotocolTransportWS {
		legacy := t.legacy
		legacy.Implementation = upgraded{gc}
		legacy.Do(w, r, exec)
		return
	}
	c := &twsConn{
		t:    t,
		conn: gc,
		exec: exec,
		// The connection outlives this handler (see below): net/http
		// cancels the request's context when the handler returns, so the
		// connection keeps its values but not its cancellation. It ends
		// with the socket, the token's expiry or the server's shutdown
		// (closeAll).
		ctx: context.WithoutCancel(r.Context()),
		ops: map[string]*twsOp{},
	}
	if c.t.readLimit > 0 {
		c.conn.SetReadLimit(c.t.readLimit)
	}
	if !c.awaitInit() {
		c.drainUntilClosed()
		_ = c.conn.Close()
		return
	}
	// The acknowledged connection is served by a fresh goroutine and this
	// handler returns, so that net/http releases the upgrade request, its
	// connection state and buffers (about 10 KiB), and the deep stack that
	// authentication grew: an idle connection then holds one goroutine
	// with a shallow stack, blocked in its read (docs/BENCHMARKS.md,
	// "Memory per idle WebSocket connection").
	go c.serve()
}

// upgraded hands a connection that is already upgraded to gqlgen's
// transport, whose Do calls Accept.
type upgraded struct{ conn *gorillaConn }

func (u upgraded) Accept(http.ResponseWriter, *http.Request, transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	return u.conn, nil
}

// twsConn is one graphql-transport-ws connection. One goroutine (serve)
// reads; operations and the keep-alive timer write under wmu.
type twsConn struct {
	t    *websocketTransport
	conn *gorillaConn
	exec graphql.GraphExecutor
	ctx  context.Context // the connection's; after connection_init it carries the viewer

	wmu sync.Mutex // serialises writes

	mu      sync.Mutex
	ops     map[string]*twsOp // active operations by id
	closing bool              // a close frame was sent
	// pinger sends the keep-alive pings: a timer rather than a goroutine,
	// so that an idle connection costs one goroutine. While it is armed
	// or running it counts one in wg.
	pinger *time.Timer
	wg     sync.WaitGroup // operation goroutines and the armed pinger
}

// twsOp is one running operation.
type twsOp struct {
	cancel context.CancelFunc
	// stopped is set when the client completed the operation: nothing
	// more is sent for it.
	stopped bool
}

// serve runs the acknowledged connection's message loop. It returns when
// the connection has ended and every operation has stopped.
func (c *twsConn) serve() {
	defer c.conn.Close()
	defer func() {
		// Stop the operations and the pinger; closing the connection first
		// keeps a write to a vanished peer from holding them up.
		c.stopAll()
		c.mu.Lock()
		c.closing = true
		if c.pinger != nil && c.pinger.Stop() {
			c.wg.Done() // disarmed before it fired
		}
		c.mu.Unlock()
		_ = c.conn.Close()
		c.wg.Wait()
		releaseConn(c.ctx)
	}()
	// The connection ends with its context, when the token expires (the
	// client reconnects with a fresh one); the server's shutdown closes
	// the socket (closeAll). Registered on the connection's context itself,
	// not on a derived one, to keep an idle connection's contexts few.
	stopExpiry := context.AfterFunc(c.ctx, func() {
		if errors.Is(c.ctx.Err(), context.DeadlineExceeded) {
			c.close(CloseForbidden, "Forbidden: token expired")
			return
		}
		c.close(websocket.CloseGoingAway, "connection ended")
	})
	defer stopExpiry()
	if c.t.keepAlive > 0 {
		c.wg.Add(1)
		c.mu.Lock()
		c.pinger = time.AfterFunc(c.t.keepAlive, c.ping)
		c.mu.Unlock()
	}
	c.loop()
	c.drainUntilClosed()
}

// awaitInit reads until connection_init and answers it. It reports
// whether the connection was acknowledged; otherwise it has sent the
// close frame (or the connection is gone).
func (c *twsConn) awaitInit() bool {
	if c.t.initTimeout > 0 {
		_ = c.conn.SetReadDeadline(time.Now().Add(c.t.initTimeout))
	}
	for {
		m, ok := c.read(true)
		if !ok {
			return false
		}
		switch m.Type {
		case msgPing:
			c.pong(m)
		case msgPong, msgComplete:
			// nothing to do before the acknowledgement
		case msgSubscribe:
			c.close(CloseUnauthorized, "Unauthorized")
			return false
		case msgConnectionInit:
			return c.acknowledge(m)
		}
	}
}

// acknowledge authenticates connection_init: connection_ack, or a 4403
// close with the reason.
func (c *twsConn) acknowledge(m twsMessage) bool {
	var payload transport.InitPayload
	if len(m.Payload) > 0 {
		_ = json.Unmarshal(m.Payload, &payload) // checked to be an object
	}
	ctx, ack, err := c.t.init(c.ctx, payload)
	if err != nil {
		c.close(CloseForbidden, err.Error())
		return false
	}
	c.ctx = ctx
	_ = c.conn.SetReadDeadline(time.Time{})
	reply := twsMessage{Type: msgConnectionAck}
	if ack != nil {
		reply.Payload, _ = json.Marshal(*ack)
	}
	return c.write(reply) == nil
}

// loop handles messages after the acknowledgement until the connection
// ends or a protocol error closes it.
func (c *twsConn) loop() {
	for {
		if c.t.keepAlive > 0 {
			// Every message, pongs included, proves the client alive.
			_ = c.conn.SetReadDeadline(time.Now().Add(2 * c.t.keepAlive))
		}
		m, ok := c.read(false)
		if !ok {
			return
		}
		switch m.Type {
		case msgPing:
			c.pong(m)
		case msgPong:
		case msgConnectionInit:
			c.close(CloseTooManyInits, "Too many initialisation requests")
			return
		case msgSubscribe:
			if !c.start(m) {
				return
			}
		case msgComplete:
			c.mu.Lock()
			if op := c.ops[m.ID]; op != nil {
				// The id is free at once, as the protocol says.
				delete(c.ops, m.ID)
				op.stopped = true
				op.cancel()
			}
			c.mu.Unlock()
		}
	}
}

// read returns the next valid message. On a read error or a malformed
// message it closes the connection (4400 for a bad message, 4408 when the
// init wait ends, 1000 when a keep-alive is missed) and reports false.
func (c *twsConn) read(initPhase bool) (twsMessage, bool) {
	if c.isClosing() {
		return twsMessage{}, false
	}
	_, r, err := c.conn.NextReader()
	var data []byte
	if err == nil {
		var buf bytes.Buffer
		_, err = buf.ReadFrom(r)
		data = buf.Bytes()
	}
	if err != nil {
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout() && initPhase && !c.isClosing():
			c.close(CloseInitTimeout, "Connection initialisation timeout")
		case errors.As(err, &ne) && ne.Timeout() && !c.isClosing():
			c.close(websocket.CloseNormalClosure, "keep-alive timeout")
		case !errors.Is(err, transport.ErrWebsocketClosed) && !errors.Is(err, net.ErrClosed) && !c.isClosing():
			c.t.onError(c.ctx, err) // the peer went away or sent too much (gorilla sent 1009)
		}
		return twsMessage{}, false
	}
	m, err := parseTWSMessage(data)
	if err != nil {
		c.close(CloseBadRequest, err.Error())
		return twsMessage{}, false
	}
	return m, true
}

// start begins the operation of a subscribe message; it reports false
// when the id is in use (the connection is closed with 4409). The id is
// registered here, in message order; parsing, validation and execution run
// on the operation's own goroutine, so that the reader's stack stays
// shallow on an idle connection.
func (c *twsConn) start(m twsMessage) bool {
	c.mu.Lock()
	if c.ops[m.ID] != nil {
		c.mu.Unlock()
		c.close(CloseSubscriberExists, "Subscriber for "+m.ID+" already exists")
		return false
	}
	ctx, cancel := context.WithCancel(graphql.StartOperationTrace(c.ctx))
	op := &twsOp{cancel: cancel}
	c.ops[m.ID] = op
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.operate(ctx, m, op)
	}()
	return true
}

// operate parses and validates a subscribe message's operation and runs
// it.
func (c *twsConn) operate(ctx context.Context, m twsMessage, op *twsOp) {
	start := graphql.Now()
	params := &graphql.RawParams{}
	dec := json.NewDecoder(bytes.NewReader(m.Payload))
	dec.UseNumber()
	if err := dec.Decode(params); err != nil {
		c.finish(m.ID, op, errorMessage(m.ID, &gqlerror.Error{Message: "invalid subscribe payload"}))
		return
	}
	// params.Headers stays empty: an operation over the socket has no
	// headers of its own, and keeping the upgrade request's (its
	// Authorization included) would cost every idle connection their
	// memory; nothing reads them.
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	rc, errs := c.exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := c.exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		if errcode.GetErrorKind(errs) == errcode.KindProtocol {
			// Parse and validation errors: the protocol's error message,
			// which ends the operation.
			c.finish(m.ID, op, errorMessage(m.ID, resp.Errors...))
		} else {
			c.send(m.ID, op, resp)
			c.finish(m.ID, op, twsMessage{ID: m.ID, Type: msgComplete})
		}
		return
	}
	ctx = graphql.WithOperationContext(ctx, rc)
	subscription := rc.Operation != nil && rc.Operation.Operation == ast.Subscription
	c.run(ctx, m.ID, op, rc, subscription)
}

// run executes an operation and sends its results, then complete. A
// subscription that the server's shutdown ended gets no complete: the
// socket closes with 1012 and graphql-ws resubscribes elsewhere.
func (c *twsConn) run(ctx context.Context, id string, op *twsOp, rc *graphql.OperationContext, subscription bool) {
	final := twsMessage{ID: id, Type: msgComplete}
	defer func() {
		if r := recover(); r != nil {
			err := rc.Recover(ctx, r)
			var gerr *gqlerror.Error
			if !errors.As(err, &gerr) {
				gerr = &gqlerror.Error{Message: "internal error"}
			}
			final = errorMessage(id, gerr)
		}
		if subscription && final.Type == msgComplete && c.t.stopping() {
			final = twsMessage{}
		}
		c.finish(id, op, final)
	}()
	responses, ctx := c.exec.DispatchOperation(ctx, rc)
	for {
		resp := responses(ctx)
		if resp == nil {
			return
		}
		if subscription && c.t.stopping() && failedOnly(resp) {
			// The shutdown cut the subscription (often while it was still
			// being set up): its error is not the stream's outcome. The
			// 1012 close that follows makes the client resubscribe.
			continue
		}
		c.send(id, op, resp)
	}
}

// failedOnly reports whether a response carries errors and no data.
func failedOnly(resp *graphql.Response) bool {
	d := bytes.TrimSpace(resp.Data)
	return len(resp.Errors) > 0 && (len(d) == 0 || bytes.Equal(d, []byte("null")))
}

// send writes one result as a next message, unless the client completed
// the operation.
func (c *twsConn) send(id string, op *twsOp, resp *graphql.Response) {
	c.mu.Lock()
	stopped := op.stopped
	c.mu.Unlock()
	if stopped {
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		c.t.onError(c.ctx, err)
		return
	}
	_ = c.write(twsMessage{ID: id, Type: msgNext, Payload: b})
}

// finish forgets an operation, so that its id may be used again, and then
// sends its final message (complete or error; none when the type is empty
// or the client completed it).
func (c *twsConn) finish(id string, op *twsOp, final twsMessage) {
	c.mu.Lock()
	if c.ops[id] == op {
		delete(c.ops, id)
	}
	stopped := op.stopped
	c.mu.Unlock()
	op.cancel()
	if !stopped && final.Type != "" {
		_ = c.write(final)
	}
}

// errorMessage is the protocol's error message for an operation.
func errorMessage(id string, errs ...*gqlerror.Error) twsMessage {
	b, _ := json.Marshal(errs)
	return twsMessage{ID: id, Type: msgError, Payload: b}
}

// stopAll cancels every operation (the connection is ending).
func (c *twsConn) stopAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, op := range c.ops {
		op.stopped = true
		op.cancel()
	}
}

// ping runs on the pinger timer: it sends one ping and re-arms the timer
// for the next keep-alive interval, or, once the connection is closing or
// a write failed, releases the pinger's count in wg.
func (c *twsConn) ping() {
	err := c.write(twsMessage{Type: msgPing})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || c.closing {
		c.wg.Done()
		return
	}
	c.pinger.Reset(c.t.keepAlive)
}

// pong answers a ping, echoing its payload.
func (c *twsConn) pong(m twsMessage) {
	_ = c.write(twsMessage{Type: msgPong, Payload: m.Payload})
}

// write sends one message; nothing is sent once the connection closes.
func (c *twsConn) write(m twsMessage) error {
	if c.isClosing() {
		return net.ErrClosed
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	err := c.conn.WriteJSON(m)
	if err != nil && !errors.Is(err, websocket.ErrCloseSent) {
		c.t.onError(c.ctx, fmt.Errorf("websocket write: %w", err))
	}
	return err
}

func (c *twsConn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// close sends a close frame with code and reason, once, and gives the
// client closeHandshakeWait to answer it; the reader then ends and serve
// closes the TCP connection.
func (c *twsConn) close(code int, reason string) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing = true
	c.mu.Unlock()
	c.wmu.Lock()
	_ = c.conn.WriteClose(code, reason)
	c.wmu.Unlock()
	_ = c.conn.SetReadDeadline(time.Now().Add(closeHandshakeWait))
}

// drainUntilClosed reads (and drops) what the client still sends after
// our close frame until its own close frame, an error or the deadline, so
// that closing the TCP connection does not reset it before the client has
// read the close frame.
func (c *twsConn) drainUntilClosed() {
	if !c.isClosing() {
		return
	}
	for {
		if _, _, err := c.conn.NextReader(); err != nil {
			return
		}
	}
}
