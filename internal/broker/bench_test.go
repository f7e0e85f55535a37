package broker_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ragchat/ragchat/internal/broker"
)

// BenchmarkPublish measures Publish with subscribers that drain their
// channels concurrently. A drainer that lags resubscribes; the number of
// lags is reported per run.
func BenchmarkPublish(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			m := newBroker(b, broker.MemoryOptions{BacklogSize: 1024})
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var lags atomic.Int64
			ready := make(chan struct{}, n)
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					first := true
					for {
						s, err := m.Subscribe(ctx, "bench")
						if err != nil {
							return
						}
						if first {
							ready <- struct{}{}
							first = false
						}
						for range s.C() {
						}
						if !errors.Is(s.Err(), broker.ErrLagged) {
							return
						}
						lags.Add(1)
					}
				}()
			}
			for range n {
				<-ready
			}
			ev := broker.Event{Topic: "bench", Kind: "DELTA", Data: []byte(`{"d":"你好, world"}`)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Publish(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			b.ReportMetric(float64(lags.Load()), "lags")
		})
	}
}
