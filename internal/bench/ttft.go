package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// streamQuery is the minimal attempt stream a client needs.
const streamQuery = `subscription($a: ID!, $s: Int) { attemptEvents(attemptId: $a, afterSeq: $s) { kind seq text } }`

// benchTTFT measures the backend's overhead on the first token: the time
// from sending ask to receiving the first DELTA, minus the fake model's own
// time to first token (measured directly against the fake). Each stream is
// one user with one WebSocket and one conversation asking rounds questions
// in turn; streams run concurrently.
func benchTTFT(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	// A chat model's pace (about 65 tokens/s of 4 runes): a faster fake
	// would measure an unrealistic token storm, not the first token.
	env.fake.SetChunkDelay(15 * time.Millisecond)
	defer env.fake.SetChunkDelay(time.Millisecond)
	model, err := fakeTTFT(ctx, env.fake.URL, 30)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "### Backend overhead on the first token\n\n")
	fmt.Fprintf(w, "Ask sent → first DELTA received over graphql-transport-ws, minus the fake model's own TTFT (median %s, measured directly against the fake). Each stream is one user with its own WebSocket and conversation asking %d questions in turn; the fake streams a 600-byte answer at 15 ms per 4-rune chunk.\n\n", ms(model), o.rounds)
	fmt.Fprintln(w, "| concurrent streams | samples | overhead p50 | overhead p99 | first token p50 (absolute) | failed |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|")
	for _, n := range o.concurrency {
		samples, failed, err := ttftRun(ctx, env, n, o.rounds)
		if err != nil {
			return err
		}
		over := make([]time.Duration, len(samples))
		for i, s := range samples {
			over[i] = s - model
		}
		env.results.ttft[n] = ttftFigures{p50: pct(over, 50), p99: pct(over, 99)}
		fmt.Fprintf(w, "| %d | %d | %s | %s | %s | %d |\n", n, len(samples), ms(pct(over, 50)), ms(pct(over, 99)), ms(pct(samples, 50)), failed)
	}
	fmt.Fprintln(w)
	return nil
}

// ttftRun runs n concurrent streams of rounds questions and returns the
// ask→first-DELTA latencies.
func ttftRun(ctx context.Context, env *benchEnv, n, rounds int) ([]time.Duration, int, error) {
	type stream struct {
		c    *gqlclient.Client
		ws   *gqlclient.WS
		conv string
	}
	streams := make([]stream, n)
	for i := range streams {
		c := env.client(fmt.Sprintf("ttft-%d-%d", n, i))
		ws, conv, err := openConv(ctx, c, uuid.Nil)
		if err != nil {
			return nil, 0, err
		}
		defer ws.Close()
		streams[i] = stream{c, ws, conv}
	}
	var (
		mu      sync.Mutex
		samples []time.Duration
		failed  int
	)
	err := allAtOnce(n, rounds, func(i, r int) error {
		s := streams[i]
		d, ok, err := askAndWaitFirstDelta(ctx, s.c, s.ws, s.conv, fmt.Sprintf("ttft-%d-%d", i, r))
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if ok {
			samples = append(samples, d)
		} else {
			failed++
		}
		return nil
	})
	return samples, failed, err
}

// allAtOnce runs n streams of rounds rounds each, round(i, r) being round
// r of stream i, every stream in its own goroutine and all released at
// once; a stream stops at its first error, and the first error of all is
// returned once every stream has ended.
func allAtOnce(n, rounds int, round func(i, r int) error) error {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		start    = make(chan struct{})
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for r := range rounds {
				if err := round(i, r); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	return firstErr
}

// askAndWaitFirstDelta asks, subscribes to the attempt and returns the time
// from sending the ask to the first DELTA; it then reads the stream to its
// end. ok is false when the attempt failed without a delta.
func askAndWaitFirstDelta(ctx context.Context, c *gqlclient.Client, ws *gqlclient.WS, conv, key string) (time.Duration, bool, error) {
	t0 := time.Now()
	attempt, err := askQ(ctx, c, conv, key, "How large can an uploaded file be?")
	if err != nil {
		return 0, false, err
	}
	sub, err := ws.Subscribe(streamQuery, map[string]any{"a": attempt})
	if err != nil {
		return 0, false, err
	}
	var first time.Duration
	for {
		r, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return first, first > 0, nil
		}
		if err != nil {
			return 0, false, err
		}
		if len(r.Errors) > 0 {
			return 0, false, r.Err()
		}
		var e struct{ AttemptEvents struct{ Kind string } }
		_ = r.Decode(&e)
		if e.AttemptEvents.Kind == "DELTA" && first == 0 {
			first = time.Since(t0)
		}
	}
}

// fakeTTFT measures the fake model's own time to the first content chunk,
// over HTTP, runs times, and returns the median.
func fakeTTFT(ctx context.Context, baseURL string, runs int) (time.Duration, error) {
	body := []byte(`{"model":"bench-model","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	var ds []time.Duration
	for range runs {
		t0 := time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			line := strings.TrimPrefix(sc.Text(), "data: ")
			var c struct {
				Choices []struct{ Delta struct{ Content string } }
			}
			if json.Unmarshal([]byte(line), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
				ds = append(ds, time.Since(t0))
				break
			}
		}
		res.Body.Close()
	}
	if len(ds) == 0 {
		return 0, errors.New("the fake model streamed no content")
	}
	return pct(ds, 50), nil
}

// createConv creates a conversation.
func createConv(ctx context.Context, c *gqlclient.Client) (string, error) {
	r, err := c.Do(ctx, `mutation { createConversation(input: {}) { id } }`, nil)
	if err != nil {
		return "", err
	}
	var out struct{ CreateConversation struct{ ID string } }
	if err := r.Decode(&out); err != nil {
		return "", err
	}
	return out.CreateConversation.ID, nil
}

// askQ asks a question and returns the attempt id.
func askQ(ctx context.Context, c *gqlclient.Client, conv, key, q string) (string, error) {
	r, err := c.Do(ctx, `mutation($c: ID!, $k: String!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: $q}) { attempt { id } } }`,
		map[string]any{"c": conv, "k": key, "q": q})
	if err != nil {
		return "", err
	}
	var out struct {
		Ask struct{ Attempt struct{ ID string } }
	}
	if err := r.Decode(&out); err != nil {
		return "", err
	}
	return out.Ask.Attempt.ID, nil
}

// pct returns the p-th percentile (nearest rank) of ds.
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// ms formats d in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
