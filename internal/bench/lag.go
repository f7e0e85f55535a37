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

// lagResult is one lag run: a broker, a cluster size and a number of
// concurrent streams.
type lagResult struct {
	broker    string
	instances int
	streams   int
	answers   int
	failed    int // answers that did not complete, or read differently on the two instances
	emitA     []time.Duration
	emitB     []time.Duration // nil in a cluster of one
	aToB      []time.Duration
}

// lagStream is one user following its answers on the owner and on another
// instance, each over its own graphql-transport-ws connection.
type lagStream struct {
	ask      *gqlclient.Client
	wsA, wsB *gqlclient.WS
	conv     string
}

// lagRun runs streams concurrent users, each asking o.rounds questions in
// turn on the owner (A) and following every answer on A and, in a cluster
// of several, on another instance (B). The fake model stamps every token
// with its emission time (stamp.go); each subscriber notes when each
// token arrived.
func lagRun(ctx context.Context, fx *benchFixture, cl *benchCluster, streams int, o benchOptions) (lagResult, error) {
	fx.fake.SetChunkDelay(15 * time.Millisecond) // a chat model's pace, about 65 tokens/s
	fx.fake.SetReply(benchAnswer(o.answerBytes))
	fx.fake.SetChunkText(stampChunk)
	defer func() {
		fx.fake.SetChunkText(nil)
		fx.fake.SetChunkDelay(time.Millisecond)
		fx.fake.SetReply(benchAnswer(600))
	}()
	res := lagResult{broker: cl.broker, instances: len(cl.servers), streams: streams}
	ss := make([]lagStream, streams)
	for i := range ss {
		user := fmt.Sprintf("lag-%s-%d-%d", cl.broker, streams, i)
		s := lagStream{ask: cl.owner().client(user)}
		var err error
		if s.wsA, err = s.ask.DialWS(ctx, gqlclient.WSOptions{}); err != nil {
			return res, err
		}
		defer s.wsA.Close()
		if len(cl.servers) > 1 {
			if s.wsB, err = cl.other(i).client(user).DialWS(ctx, gqlclient.WSOptions{}); err != nil {
				return res, err
			}
			defer s.wsB.Close()
		}
		if s.conv, err = createConv(ctx, s.ask); err != nil {
			return res, err
		}
		ss[i] = s
	}
	var mu sync.Mutex
	err := allAtOnce(streams, o.rounds, func(i, r int) error {
		a, b, ok, err := lagRound(ctx, ss[i], fmt.Sprintf("lag-%d-%d", i, r))
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		res.answers++
		if !ok {
			res.failed++
		}
		res.emitA = append(res.emitA, a.delays()...)
		if b != nil {
			res.emitB = append(res.emitB, b.delays()...)
			res.aToB = append(res.aToB, pairDelays(a, b)...)
		}
		return nil
	})
	return res, err
}

// lagRound asks once and follows the answer on both connections to its
// end. ok is false when the answer did not complete on both, or the two
// read different text.
func lagRound(ctx context.Context, s lagStream, key string) (a, b *stampReader, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, deadlineGuard)
	defer cancel()
	attempt, err := askQ(ctx, s.ask, s.conv, key, "How large can an uploaded file be?")
	if err != nil {
		return nil, nil, false, err
	}
	subA, err := s.wsA.Subscribe(streamQuery, map[string]any{"a": attempt})
	if err != nil {
		return nil, nil, false, err
	}
	var subB *gqlclient.Subscription
	if s.wsB != nil {
		if subB, err = s.wsB.Subscribe(streamQuery, map[string]any{"a": attempt}); err != nil {
			return nil, nil, false, err
		}
	}
	var (
		wg           sync.WaitGroup
		kindA, kindB string
		errA, errB   error
	)
	a = newStampReader()
	wg.Add(1)
	go func() {
		defer wg.Done()
		kindA, errA = readStamped(ctx, subA, a)
	}()
	if subB != nil {
		b = newStampReader()
		wg.Add(1)
		go func() {
			defer wg.Done()
			kindB, errB = readStamped(ctx, subB, b)
		}()
	}
	wg.Wait()
	if err := errors.Join(errA, errB); err != nil {
		return nil, nil, false, err
	}
	ok = kindA == "COMPLETED"
	if b != nil {
		ok = ok && kindB == "COMPLETED" && a.text.String() == b.text.String()
	}
	return a, b, ok, nil
}

// readStamped reads a stream to its end into r and returns the kind of
// its last event.
func readStamped(ctx context.Context, sub *gqlclient.Subscription, r *stampReader) (string, error) {
	last := ""
	for {
		res, err := sub.Next(ctx)
		at := stampNow()
		if errors.Is(err, io.EOF) {
			return last, nil
		}
		if err != nil {
			return last, err
		}
		if len(res.Errors) > 0 {
			return last, res.Err()
		}
		var e struct {
			AttemptEvents struct {
				Kind string
				Text *string
			}
		}
		if err := res.Decode(&e); err != nil {
			return last, err
		}
		r.event(at)
		last = e.AttemptEvents.Kind
		if last == "DELTA" && e.AttemptEvents.Text != nil {
			r.feed(*e.AttemptEvents.Text, at)
		}
	}
}

// writeLagTable prints the lag runs as one Markdown table.
func writeLagTable(w io.Writer, rs []lagResult, o benchOptions) {
	fmt.Fprintf(w, "#### Delta lag: the model emits a token → a subscriber receives it\n\n")
	window := "RAGCHAT_DELTA_WINDOW at its default, 40 ms"
	if o.deltaWindow >= 0 {
		window = "RAGCHAT_DELTA_WINDOW=" + o.deltaWindow.String()
	}
	if o.deltaBudget >= 0 {
		window += ", RAGCHAT_DELTA_BUDGET=" + o.deltaBudget.String()
	} else {
		window += ", RAGCHAT_DELTA_BUDGET at its default, 400 ms: text may wait up to that long"
	}
	fmt.Fprintf(w, "Each stream is one user asking %d question(s) in turn on instance A (which runs the answers) and following every answer over graphql-transport-ws on A and, with several instances, on B at once. The fake model streams a %d-byte answer, 4 runes per chunk every 15 ms (about 65 tokens/s), and prefixes each chunk with its send time; a subscriber notes when each token arrives. Tokens sent before a subscriber's first event are left out (they come from the backlog, not live). Emission → A is the single-instance figure; A → B is the same token's arrival on B minus its arrival on A: what crossing instances adds. Both include each subscriber's own delta coalescing (%s): the two subscribers' windows run independently, so with a window A → B spreads by up to its length either way. The memory row is one instance with the in-process broker, the floor.\n\n", o.rounds, o.answerBytes, window)
	fmt.Fprintln(w, "| broker | instances | concurrent streams | answers | tokens | emit → A p50 | emit → A p99 | emit → B p50 | emit → B p99 | A → B p50 | A → B p99 | failed |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		if r.emitB == nil {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s | %s | – | – | – | – | %d |\n", r.broker, r.instances, r.streams, r.answers, len(r.emitA),
				ms(pct(r.emitA, 50)), ms(pct(r.emitA, 99)), r.failed)
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %d |\n", r.broker, r.instances, r.streams, r.answers, len(r.emitA),
			ms(pct(r.emitA, 50)), ms(pct(r.emitA, 99)), ms(pct(r.emitB, 50)), ms(pct(r.emitB, 99)),
			ms(pct(r.aToB, 50)), ms(pct(r.aToB, 99)), r.failed)
	}
	fmt.Fprintln(w)
}
