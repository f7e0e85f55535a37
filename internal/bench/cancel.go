package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// cancelResult is the cancels of one run sent to one target instance.
type cancelResult struct {
	broker    string
	instances int
	target    string
	closed    []time.Duration // cancelAttempt sent → the fake model saw the request close
	replied   []time.Duration // cancelAttempt sent → its response received
	missed    int             // no upstream close within the hang guard
	wrong     int             // the attempt did not end FAILED(CANCELLED)
}

// cancelGuard is how long a cancel may take to close the model request
// before it counts as not closed (a hang guard: the lease-renewal fallback
// closes it within one checkpoint interval).
const cancelGuard = 30 * time.Second

// cancelQuery cancels an attempt.
const cancelQuery = `mutation($id: ID!) { cancelAttempt(id: $id) { status failureCode } }`

// cancelRun cancels o.cancels running answers through each target: in a
// cluster of several, another instance (B, across instances) and the owner
// itself (A, the single-instance figure), alternately, so both see the
// same conditions; in a cluster of one, the owner only. Every answer runs
// on A, streams from the fake at a chat model's pace and is cancelled
// right after its first DELTA; the fake reports when A's request to it
// closes.
func cancelRun(ctx context.Context, fx *benchFixture, cl *benchCluster, o benchOptions) ([]cancelResult, error) {
	fx.fake.SetChunkDelay(15 * time.Millisecond)
	fx.fake.SetReply(benchAnswer(8000)) // 30 s of streaming: never over before the cancel
	defer func() {
		fx.fake.SetChunkDelay(time.Millisecond)
		fx.fake.SetReply(benchAnswer(600))
	}()
	user := "cancel-" + cl.broker
	owner := cl.owner().client(user)
	ws, err := owner.DialWS(ctx, gqlclient.WSOptions{})
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	type target struct {
		c   *gqlclient.Client
		res *cancelResult
	}
	var targets []target
	if len(cl.servers) > 1 {
		targets = append(targets, target{cl.other(0).client(user), &cancelResult{target: "B (another instance)"}})
	}
	targets = append(targets, target{owner, &cancelResult{target: "A (the owner)"}})
	for i := range o.cancels {
		for j, t := range targets {
			closed, replied, ok, err := cancelOnce(ctx, fx, owner, ws, t.c, fmt.Sprintf("cancel-%d-%d", i, j))
			switch {
			case err != nil:
				return nil, err
			case closed < 0:
				t.res.missed++
			default:
				t.res.closed = append(t.res.closed, closed)
			}
			t.res.replied = append(t.res.replied, replied)
			if !ok {
				t.res.wrong++
			}
		}
	}
	out := make([]cancelResult, len(targets))
	for i, t := range targets {
		t.res.broker, t.res.instances = cl.broker, len(cl.servers)
		out[i] = *t.res
	}
	return out, nil
}

// cancelOnce asks on the owner, waits for the first DELTA, sends
// cancelAttempt through target and returns the time until the fake model
// saw the upstream request close (negative when it did not within the
// hang guard) and until the mutation answered. ok is true when the
// mutation and the stream both ended FAILED(CANCELLED).
func cancelOnce(ctx context.Context, fx *benchFixture, owner *gqlclient.Client, ws *gqlclient.WS, target *gqlclient.Client, key string) (closed, replied time.Duration, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, deadlineGuard)
	defer cancel()
	conv, err := createConv(ctx, owner)
	if err != nil {
		return 0, 0, false, err
	}
	attempt, err := askQ(ctx, owner, conv, key, "How large can an uploaded file be?")
	if err != nil {
		return 0, 0, false, err
	}
	sub, err := ws.Subscribe(streamQuery, map[string]any{"a": attempt})
	if err != nil {
		return 0, 0, false, err
	}
	defer sub.Stop()
	for running := false; !running; {
		kind, err := nextKind(ctx, sub)
		if err != nil {
			return 0, 0, false, fmt.Errorf("before the first delta: %w", err)
		}
		running = kind == "DELTA"
	}
	for drained := false; !drained; { // disconnects of earlier answers
		select {
		case <-fx.fake.Disconnects():
		default:
			drained = true
		}
	}
	type reply struct {
		status, code string
		at           time.Duration
		err          error
	}
	replies := make(chan reply, 1)
	t0 := time.Now()
	go func() {
		r, err := target.Do(ctx, cancelQuery, map[string]any{"id": attempt})
		rep := reply{at: time.Since(t0), err: err}
		if err == nil {
			var out struct {
				CancelAttempt struct {
					Status      string
					FailureCode *string
				}
			}
			rep.err = r.Decode(&out)
			rep.status = out.CancelAttempt.Status
			if out.CancelAttempt.FailureCode != nil {
				rep.code = *out.CancelAttempt.FailureCode
			}
		}
		replies <- rep
	}()
	closed = -1
	guard := time.NewTimer(cancelGuard)
	defer guard.Stop()
	select {
	case <-fx.fake.Disconnects():
		closed = time.Since(t0)
	case <-guard.C:
	case <-ctx.Done():
	}
	rep := <-replies
	if rep.err != nil {
		return 0, 0, false, fmt.Errorf("cancelAttempt: %w", rep.err)
	}
	last := ""
	for {
		kind, err := nextKind(ctx, sub)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("after the cancel: %w", err)
		}
		last = kind
	}
	return closed, rep.at, rep.status == "FAILED" && rep.code == "CANCELLED" && last == "FAILED", nil
}

// nextKind reads the next attempt event and returns its kind (io.EOF at
// the end of the stream).
func nextKind(ctx context.Context, sub *gqlclient.Subscription) (string, error) {
	r, err := sub.Next(ctx)
	if err != nil {
		return "", err
	}
	if len(r.Errors) > 0 {
		return "", r.Err()
	}
	var e struct{ AttemptEvents struct{ Kind string } }
	if err := r.Decode(&e); err != nil {
		return "", err
	}
	return e.AttemptEvents.Kind, nil
}

// writeCancelTable prints the cancel runs as one Markdown table.
func writeCancelTable(w io.Writer, rs []cancelResult, o benchOptions) {
	fmt.Fprintf(w, "#### Cancel → the model request closed\n\n")
	fmt.Fprintf(w, "An answer runs on instance A (the fake model streams 4 runes every 15 ms); right after its first DELTA, `cancelAttempt` is sent over HTTP to B (another instance) or to A itself, alternately, %d times each; the time runs from sending the mutation to the fake model seeing A's upstream request close, and, separately, to the mutation's response. The memory row is one instance with the in-process broker.\n\n", o.cancels)
	fmt.Fprintln(w, "| broker | instances | cancel sent to | cancels | upstream closed p50 | p99 | max | response p50 | response p99 | not closed | not FAILED(CANCELLED) |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %s | %s | %s | %d | %d |\n", r.broker, r.instances, r.target, len(r.replied),
			ms(pct(r.closed, 50)), ms(pct(r.closed, 99)), ms(pct(r.closed, 100)), ms(pct(r.replied, 50)), ms(pct(r.replied, 99)), r.missed, r.wrong)
	}
	fmt.Fprintln(w)
}
