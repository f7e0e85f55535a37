package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// benchWire measures the bytes a client reads to follow one answer, over
// WebSocket and SSE at once, against the answer's size. The fake model
// streams 4 runes per chunk (about one token).
func benchWire(ctx context.Context, env *benchEnv, _ benchOptions, w io.Writer) error {
	fmt.Fprintln(w, "### Bytes on the wire per answer")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "One live answer followed at once over graphql-transport-ws and graphql-sse with the minimal selection `{ kind seq text }`; bytes read by the client from subscribe to completion (SSE includes its HTTP response headers). The model streams 4 runes per chunk, either as fast as possible (1 ms per chunk) or at a chat model's pace (15 ms per chunk, about 65 tokens/s); deltas are coalesced by the adaptive window (RAGCHAT_DELTA_WINDOW 40 ms between events, a 128-byte batch, RAGCHAT_DELTA_BUDGET 400 ms latency budget).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| model pace | answer bytes | DELTA events | WebSocket bytes | × answer | SSE bytes | × answer |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	owner := env.client("wire")
	type run struct {
		pace time.Duration
		size int
	}
	runs := []run{{time.Millisecond, 200}, {time.Millisecond, 1000}, {time.Millisecond, 4000}, {time.Millisecond, 16000},
		{15 * time.Millisecond, 200}, {15 * time.Millisecond, 1000}, {15 * time.Millisecond, 4000}}
	defer env.fake.SetChunkDelay(time.Millisecond)
	for _, rn := range runs {
		size := rn.size
		env.fake.SetChunkDelay(rn.pace)
		env.fake.SetReply(benchAnswer(size))
		conv, err := createConv(ctx, owner)
		if err != nil {
			return err
		}
		attempt, err := askQ(ctx, owner, conv, fmt.Sprint("wire-", size, rn.pace), "How large can an uploaded file be?")
		if err != nil {
			return err
		}
		wsClient, sseClient := env.client("wire"), env.client("wire")
		ws, err := wsClient.DialWS(ctx, gqlclient.WSOptions{})
		if err != nil {
			return err
		}
		wsStart := wsClient.BytesRead()
		var (
			wg              sync.WaitGroup
			wsText, sseText string
			wsDeltas        int
			wsErr, sseErr   error
		)
		wg.Add(2)
		go func() {
			defer wg.Done()
			sub, err := ws.Subscribe(streamQuery, map[string]any{"a": attempt})
			if err == nil {
				wsText, wsDeltas, err = readDeltas(ctx, sub)
			}
			wsErr = err
		}()
		go func() {
			defer wg.Done()
			sub, err := sseClient.SubscribeSSE(ctx, streamQuery, map[string]any{"a": attempt})
			if err == nil {
				sseText, _, err = readDeltas(ctx, sub)
			}
			sseErr = err
		}()
		wg.Wait()
		ws.Close()
		if err := errors.Join(wsErr, sseErr); err != nil {
			return err
		}
		if wsText != sseText {
			return fmt.Errorf("WebSocket and SSE spelled different answers")
		}
		wsBytes, sseBytes := wsClient.BytesRead()-wsStart, sseClient.BytesRead()
		n := len(wsText)
		if rn.pace == 15*time.Millisecond && rn.size == 1000 {
			env.results.wireOK, env.results.wireWS, env.results.wireSSE = true, float64(wsBytes)/float64(n), float64(sseBytes)/float64(n)
		}
		fmt.Fprintf(w, "| %s/chunk | %d | %d | %d | %.1f | %d | %.1f |\n", rn.pace, n, wsDeltas, wsBytes, float64(wsBytes)/float64(n), sseBytes, float64(sseBytes)/float64(n))
	}
	env.fake.SetReply(benchAnswer(600))
	fmt.Fprintln(w)
	return nil
}

// readDeltas reads a stream to its end and returns the text and the number
// of DELTA events.
func readDeltas(ctx context.Context, sub *gqlclient.Subscription) (string, int, error) {
	var text []byte
	n := 0
	for {
		r, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return string(text), n, nil
		}
		if err != nil {
			return "", 0, err
		}
		if len(r.Errors) > 0 {
			return "", 0, r.Err()
		}
		var e struct {
			AttemptEvents struct {
				Kind string
				Text *string
			}
		}
		if err := r.Decode(&e); err != nil {
			return "", 0, err
		}
		if e.AttemptEvents.Kind == "DELTA" && e.AttemptEvents.Text != nil {
			text = append(text, *e.AttemptEvents.Text...)
			n++
		}
	}
}
