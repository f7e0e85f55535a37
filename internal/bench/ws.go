package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// benchIdleWS opens o.conns authenticated, idle graphql-transport-ws
// connections to the child server and reports its memory growth per
// connection, read from the server's own /metrics (resident set, Go heap
// and stacks) before and after.
func benchIdleWS(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	settle := func() (map[string]float64, error) {
		time.Sleep(3 * time.Second)
		return scrapeMetrics(ctx, env.base+"/metrics")
	}
	before, err := settle()
	if err != nil {
		return err
	}
	heap, err := startHeapProfile(ctx, env, o)
	if err != nil {
		return err
	}
	conns := make([]*gqlclient.WS, o.conns)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	sem := make(chan struct{}, 64)
	c := env.client("idle")
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ws, err := c.DialWS(ctx, gqlclient.WSOptions{})
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			conns[i] = ws
		}()
	}
	wg.Wait()
	defer func() {
		for _, ws := range conns {
			if ws != nil {
				ws.Drop()
			}
		}
	}()
	if firstErr != nil {
		return fmt.Errorf("open connections: %w", firstErr)
	}
	after, err := settle()
	if err != nil {
		return err
	}
	n := float64(o.conns)
	per := func(name string) float64 { return (after[name] - before[name]) / n }
	env.results.wsOK, env.results.wsRSSBytes = true, per("process_resident_memory_bytes")
	fmt.Fprintf(w, "### Memory per idle WebSocket connection\n\n")
	fmt.Fprintf(w, "%d authenticated graphql-transport-ws connections (connection_init acknowledged, no subscription), held open by the benchmark process; growth of the server process's own metrics divided by the number of connections, 3 s after connecting.\n\n", o.conns)
	fmt.Fprintln(w, "| measure | total growth | per connection |")
	fmt.Fprintln(w, "|---|---:|---:|")
	for _, m := range []struct{ label, name string }{
		{"resident set (process_resident_memory_bytes)", "process_resident_memory_bytes"},
		{"Go heap in use (go_memstats_heap_inuse_bytes)", "go_memstats_heap_inuse_bytes"},
		{"goroutine stacks (go_memstats_stack_inuse_bytes)", "go_memstats_stack_inuse_bytes"},
	} {
		fmt.Fprintf(w, "| %s | %.1f MiB | %.1f KiB |\n", m.label, (after[m.name]-before[m.name])/(1<<20), per(m.name)/1024)
	}
	fmt.Fprintf(w, "| goroutines (go_goroutines) | %.0f | %.1f |\n", after["go_goroutines"]-before["go_goroutines"], per("go_goroutines"))
	fmt.Fprintf(w, "| open connections (ragchat_websocket_connections) | %.0f | |\n\n", after["ragchat_websocket_connections"])
	return heap.finish(ctx, w)
}

// scrapeMetrics reads the samples of a Prometheus text page, keyed by the
// series as printed: `name` or `name{label="value",…}`.
func scrapeMetrics(ctx context.Context, url string) (map[string]float64, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		name, value := line[:i], line[i+1:]
		if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			out[name] = v
		}
	}
	return out, sc.Err()
}
