package server_test

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestSubscribeDisconnectCyclesDoNotLeak runs 200 subscribe/disconnect
// cycles (WebSocket dropped abruptly, WebSocket closed normally, SSE
// cancelled; attempt, conversation and viewer streams) and checks that the
// process's goroutines return to their baseline.
func TestSubscribeDisconnectCyclesDoNotLeak(t *testing.T) {
	h := start(t, servertest.Options{})
	c := h.Client(t, "alice")
	conv := createConversation(t, c)
	attempt := ask(t, c, conv, "上传文件最大是多少？")
	waitDone(t, c, attempt)

	cycle := func(i int) {
		ctx := ctxT(t)
		switch i % 5 {
		case 0, 1: // WebSocket: read one replayed event, then drop or close
			ws, err := c.DialWS(ctx, gqlclient.WSOptions{})
			if err != nil {
				t.Fatalf("cycle %d: dial: %v", i, err)
			}
			sub, err := ws.Subscribe(attemptEventsQuery, map[string]any{"a": attempt})
			if err != nil {
				t.Fatalf("cycle %d: subscribe: %v", i, err)
			}
			if _, err := sub.Next(ctx); err != nil {
				t.Fatalf("cycle %d: first event: %v", i, err)
			}
			if i%4 == 0 {
				ws.Drop()
			} else {
				ws.Close()
			}
		case 2: // SSE: read one event, then cancel
			sub, err := c.SubscribeSSE(ctx, attemptEventsQuery, map[string]any{"a": attempt})
			if err != nil {
				t.Fatalf("cycle %d: SSE: %v", i, err)
			}
			if _, err := sub.Next(ctx); err != nil {
				t.Fatalf("cycle %d: first SSE event: %v", i, err)
			}
			sub.Stop()
		case 3: // a live conversation stream, dropped after one event
			ws, err := c.DialWS(ctx, gqlclient.WSOptions{})
			if err != nil {
				t.Fatalf("cycle %d: dial: %v", i, err)
			}
			sub, err := ws.Subscribe(`subscription($c: ID!) { conversationEvents(conversationId: $c) { kind } }`, map[string]any{"c": conv})
			if err != nil {
				t.Fatalf("cycle %d: subscribe: %v", i, err)
			}
			// Rename until the subscription, which starts asynchronously,
			// sees an event.
			for {
				mustDo(t, c, `mutation($c: ID!) { renameConversation(id: $c, title: "t") { id } }`, map[string]any{"c": conv}, nil)
				wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				_, err := sub.Next(wctx)
				cancel()
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("cycle %d: no conversation event", i)
				}
			}
			ws.Drop()
		case 4: // the viewer's feed over SSE, cancelled after one event
			sub, err := c.SubscribeSSE(ctx, `subscription { viewerEvents { kind conversation { id } } }`, nil)
			if err != nil {
				t.Fatalf("cycle %d: SSE: %v", i, err)
			}
			for {
				createConversation(t, c)
				wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				_, err := sub.Next(wctx)
				cancel()
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("cycle %d: no viewer event", i)
				}
			}
			sub.Stop()
		}
	}

	for i := range 10 { // warm up pools and caches
		cycle(i)
	}
	baseline := settledGoroutines(c, 0)
	for i := range 200 {
		cycle(i)
	}
	n := settledGoroutines(c, baseline)
	t.Logf("goroutines: baseline %d, after 200 cycles %d", baseline, n)
	if n > baseline+3 {
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
		t.Fatalf("goroutines: %d after 200 cycles, baseline %d\n%s", n, baseline, buf.String())
	}
}

// settledGoroutines closes the client's idle connections and waits (up to
// 10 s) for the goroutine count to reach target, returning the count.
func settledGoroutines(c *gqlclient.Client, target int) int {
	deadline := time.Now().Add(10 * time.Second)
	prev := -1
	for {
		c.HTTP.CloseIdleConnections()
		runtime.GC()
		n := runtime.NumGoroutine()
		if (target > 0 && n <= target) || (target == 0 && n == prev) || time.Now().After(deadline) {
			return n
		}
		prev = n
		time.Sleep(100 * time.Millisecond)
	}
}
