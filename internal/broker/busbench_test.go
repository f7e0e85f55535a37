package broker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/broker"
)

// benchPace is the interval between two DELTAs of one stream: about 40
// tokens per second, a chat model's streaming pace.
const benchPace = 25 * time.Millisecond

// benchPair returns the broker events are published on and the one they
// are received on: one Memory for "memory" (the single-instance figure),
// else two Distributed brokers on one database or one NATS server.
func benchPair(b *testing.B, bus string, opts broker.Options) (pub, sub broker.Broker, stats func() string) {
	b.Helper()
	mem := broker.MemoryOptions{SubscriberBuffer: 1 << 14, JanitorInterval: -1}
	opts.Memory = mem
	switch bus {
	case "memory":
		m := broker.NewMemory(mem)
		b.Cleanup(func() { _ = m.Close() })
		return m, m, func() string { return "" }
	case "postgres":
		tb := openPostgresBus(b, false)
		opts.Instance = "a"
		a := tb.connect(b, opts)
		opts.Instance = "b"
		return a, tb.connect(b, opts), func() string { return statsLine(a.Stats()) }
	default:
		tb := openNATSBus(b, false)
		opts.Instance = "a"
		a := tb.connect(b, opts)
		opts.Instance = "b"
		return a, tb.connect(b, opts), func() string { return statsLine(a.Stats()) }
	}
}

func statsLine(s broker.DistributedStats) string {
	return fmt.Sprintf("sent=%d frames=%d merged=%d dropped=%d send_errors=%d", s.Sent, s.Frames, s.Merged, s.Dropped, s.SendErrors)
}

// latencies collects publish-to-delivery delays.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d ...time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d...)
	l.mu.Unlock()
}

// report sorts the delays and reports p50, p99 and max in milliseconds.
func (l *latencies) report(b *testing.B) (p50, p99 time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0, 0
	}
	slices.Sort(l.d)
	q := func(p float64) time.Duration { return l.d[min(len(l.d)-1, int(p*float64(len(l.d))))] }
	p50, p99 = q(0.50), q(0.99)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(l.d[len(l.d)-1].Microseconds())/1000, "max-ms")
	return p50, p99
}

// stampDelta is a DELTA whose text is the publish time, so that merged
// DELTAs still tell when each part was published.
func stampDelta(topic string, seq int) broker.Event {
	return broker.Event{Topic: topic, Kind: broker.KindDelta, Seq: seq,
		Data: deltaData(strconv.FormatInt(time.Now().UnixNano(), 10) + ";")}
}

// stampsOf returns the publish times in a (possibly merged) stamped DELTA.
func stampsOf(ev broker.Event) []int64 {
	var p struct {
		T string `json:"t"`
	}
	if json.Unmarshal(ev.Data, &p) != nil {
		return nil
	}
	var out []int64
	for _, s := range strings.Split(strings.TrimSuffix(p.T, ";"), ";") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// BenchmarkCrossInstanceLag measures the delay from Publish on instance A
// to delivery to a subscriber on instance B, for `streams` answers streaming
// at once, each publishing a DELTA every 25 ms (about 40 tokens/s). b.N is
// the total number of DELTAs. "memory" is the single-instance broker
// (publish and subscribe on one Memory) measured in the same run.
//
//	go test ./internal/broker -run '^$' -bench CrossInstanceLag -benchtime 5s
func BenchmarkCrossInstanceLag(b *testing.B) {
	for _, bus := range []string{"memory", "postgres", "nats"} {
		for _, streams := range []int{1, 50, 200} {
			b.Run(fmt.Sprintf("bus=%s/streams=%d", bus, streams), func(b *testing.B) {
				benchLag(b, bus, streams)
			})
		}
	}
}

func benchLag(b *testing.B, bus string, streams int) {
	pub, sub, stats := benchPair(b, bus, broker.Options{})
	perStream := max(1, (b.N+streams-1)/streams)
	var lat latencies
	var received atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var readers sync.WaitGroup
	for i := range streams {
		s, err := sub.Subscribe(ctx, fmt.Sprint("attempt:bench-", i))
		if err != nil {
			b.Fatal(err)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			for ev := range s.C() {
				now := time.Now().UnixNano()
				stamps := stampsOf(ev)
				ds := make([]time.Duration, len(stamps))
				for j, st := range stamps {
					ds[j] = time.Duration(now - st)
				}
				lat.add(ds...)
				if received.Add(int64(len(stamps))) == int64(perStream*streams) {
					cancel()
				}
			}
		}()
	}
	b.ResetTimer()
	var pubs sync.WaitGroup
	for i := range streams {
		pubs.Add(1)
		go func() {
			defer pubs.Done()
			topic := fmt.Sprint("attempt:bench-", i)
			time.Sleep(rand.N(benchPace)) // streams do not tick together
			tick := time.NewTicker(benchPace)
			defer tick.Stop()
			for j := range perStream {
				if _, err := pub.Publish(context.Background(), stampDelta(topic, j+1)); err != nil {
					b.Error(err)
					return
				}
				<-tick.C
			}
		}()
	}
	pubs.Wait()
	select {
	case <-ctx.Done():
	case <-time.After(hangGuard):
		b.Errorf("only %d of %d deltas arrived", received.Load(), perStream*streams)
	}
	b.StopTimer()
	cancel()
	readers.Wait()
	lat.report(b)
	b.ReportMetric(float64(streams)*float64(time.Second)/float64(benchPace), "deltas/s")
	if s := stats(); s != "" {
		b.Log(s)
	}
}

// BenchmarkBusCeiling offers a bus a fixed rate of events (spread over 200
// topics, of a kind that is never merged) for two seconds per step and
// reports what it delivered and the delay: the ceiling is the highest rate
// that is still delivered in full with a flat p99. "batched" is the
// Distributed broker as shipped; "unbatched" sends one event per NOTIFY
// (MaxBatchEvents 1), the ceiling of NOTIFY itself on this machine.
//
//	go test ./internal/broker -run '^$' -bench BusCeiling -benchtime 1x
func BenchmarkBusCeiling(b *testing.B) {
	for _, bus := range []string{"postgres", "nats"} {
		for _, mode := range []string{"batched", "unbatched"} {
			if bus == "nats" && mode == "unbatched" {
				continue
			}
			rates := []int{10000, 20000, 40000, 80000, 160000}
			if mode == "unbatched" {
				rates = []int{1000, 2000, 4000, 5000, 10000}
			}
			for _, rate := range rates {
				b.Run(fmt.Sprintf("bus=%s/%s/rate=%d", bus, mode, rate), func(b *testing.B) {
					opts := broker.Options{QueueSize: 1 << 16}
					if mode == "unbatched" {
						opts.MaxBatchEvents = 1
						opts.FlushInterval = -1
					}
					for range b.N {
						benchCeiling(b, bus, rate, opts)
					}
				})
			}
		}
	}
}

func benchCeiling(b *testing.B, bus string, rate int, opts broker.Options) {
	const topics, step = 200, 2 * time.Second
	pub, sub, stats := benchPair(b, bus, opts)
	var lat latencies
	var received atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var readers sync.WaitGroup
	for i := range topics {
		s, err := sub.Subscribe(ctx, fmt.Sprint("conversation:bench-", i))
		if err != nil {
			b.Fatal(err)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			for ev := range s.C() {
				lat.add(time.Duration(time.Now().UnixNano() - int64(ev.Seq)))
				received.Add(1)
			}
		}()
	}
	start := time.Now()
	sent := 0
	tick := time.NewTicker(time.Millisecond)
	for now := start; now.Sub(start) < step; now = <-tick.C {
		due := int(float64(rate) * now.Sub(start).Seconds())
		for ; sent < due; sent++ {
			ev := broker.Event{Topic: fmt.Sprint("conversation:bench-", sent%topics), Kind: "MESSAGE", Seq: int(time.Now().UnixNano())}
			if _, err := pub.Publish(context.Background(), ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	tick.Stop()
	elapsed := time.Since(start)
	deadline := time.Now().Add(10 * time.Second)
	for received.Load() < int64(sent) && time.Now().Before(deadline) { // drain what is queued
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	readers.Wait()
	lat.report(b)
	b.ReportMetric(float64(sent)/elapsed.Seconds(), "offered/s")
	b.ReportMetric(float64(received.Load())/time.Since(start).Seconds(), "delivered/s")
	b.ReportMetric(float64(int64(sent)-received.Load()), "undelivered")
	b.Log(stats())
}
