package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// Metrics the soak reads from the child's /metrics.
const (
	metricHeapInuse  = "go_memstats_heap_inuse_bytes"
	metricRSS        = "process_resident_memory_bytes"
	metricGoroutines = "go_goroutines"
	// metricCacheEntries and metricCacheBound are the entries each of the
	// server's long-lived caches holds and its bound
	// (internal/server/caches.go).
	metricCacheEntries = "ragchat_cache_entries"
	metricCacheBound   = "ragchat_cache_bound"
)

// soakSample is the child's memory after one step of the soak, read after
// a forced garbage collection.
type soakSample struct {
	label      string
	asks       int
	failed     int
	elapsed    time.Duration
	heapInuse  float64
	rss        float64
	goroutines float64
	entries    map[string]float64 // cache → entries
	bounds     map[string]float64 // cache → bound (absent: bounded otherwise)
	profile    string             // the heap profile's file
}

// benchSoak runs o.soakRounds identical soaks against a fresh child server
// answering with the offline model at zero delay, and reads the child's
// memory after each (issue 16, item 7): a leak grows the heap from one
// soak to the next, while caches, once full, do not. Each soak has
// o.soakWorkers workers; each worker signs in as one user after another
// of its share of o.soakUsers users that are new in every soak (their own
// tokens, conversations and feeds), opens a WebSocket, asks o.soakTurns
// questions in a new conversation following each answer to its end,
// closes the WebSocket and goes on with its next user, for o.soakDuration.
// After a warm-up, after each soak and o.soakIdle after the last, it waits
// until the server is idle, forces a garbage collection by taking a heap
// profile (pprof, saved to o.soakProfiles) and reads the heap in use, the
// resident set, the goroutines and the entries of each cache from
// /metrics.
func benchSoak(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	debug, err := env.pprofAddr()
	if err != nil {
		return err
	}
	dir := o.soakProfiles
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "ragchat-soak-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	measure := func(label, file string, asks, failed int, elapsed time.Duration) (soakSample, error) {
		if _, err := settledMetrics(ctx, env); err != nil {
			return soakSample{}, err
		}
		path := filepath.Join(dir, file)
		if err := saveProfile(ctx, "http://"+debug+"/debug/pprof/heap?gc=1", path); err != nil {
			return soakSample{}, err
		}
		goroutines := strings.Replace(path, "heap-", "goroutines-", 1)
		if err := saveProfile(ctx, "http://"+debug+"/debug/pprof/goroutine?debug=1", strings.TrimSuffix(goroutines, ".pb.gz")+".txt"); err != nil {
			return soakSample{}, err
		}
		m, err := scrapeMetrics(ctx, env.base+"/metrics")
		if err != nil {
			return soakSample{}, err
		}
		s := soakSample{label: label, asks: asks, failed: failed, elapsed: elapsed, heapInuse: m[metricHeapInuse], rss: m[metricRSS],
			goroutines: m[metricGoroutines], entries: seriesByLabel(m, metricCacheEntries, "cache"),
			bounds: seriesByLabel(m, metricCacheBound, "cache"), profile: path}
		return s, nil
	}

	var samples []soakSample
	// Warm up: two conversations per worker, so that pools, prepared
	// statements and code paths exist before the baseline.
	warm, err := soakRound(ctx, env, o, "warm", 0, 2)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	s, err := measure("warm-up", "heap-0-warm.pb.gz", warm.asks, warm.failed, warm.elapsed)
	if err != nil {
		return err
	}
	samples = append(samples, s)
	for r := 1; r <= o.soakRounds; r++ {
		res, err := soakRound(ctx, env, o, fmt.Sprintf("soak%d", r), o.soakDuration, 0)
		if err != nil {
			return fmt.Errorf("soak %d: %w", r, err)
		}
		s, err := measure(fmt.Sprintf("soak %d", r), fmt.Sprintf("heap-%d-soak.pb.gz", r), res.asks, res.failed, res.elapsed)
		if err != nil {
			return err
		}
		samples = append(samples, s)
	}
	if o.soakIdle > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(o.soakIdle):
		}
		s, err := measure(fmt.Sprintf("%s idle after soak %d", o.soakIdle, o.soakRounds), "heap-idle.pb.gz", 0, 0, 0)
		if err != nil {
			return err
		}
		samples = append(samples, s)
	}
	writeSoakReport(w, o, samples)
	return nil
}

// soakResult is what one soak did.
type soakResult struct {
	asks, failed int
	elapsed      time.Duration
}

// soakRound runs one soak named tag: for duration, or, when duration is
// 0, until each worker has had convs conversations.
func soakRound(ctx context.Context, env *benchEnv, o benchOptions, tag string, duration time.Duration, convs int) (soakResult, error) {
	var (
		asks, failed atomic.Int64
		wg           sync.WaitGroup
		mu           sync.Mutex
		firstErr     error
	)
	t0 := time.Now()
	more := func(done int) bool {
		if ctx.Err() != nil {
			return false
		}
		if duration > 0 {
			return time.Since(t0) < duration
		}
		return done < convs
	}
	users := max(o.soakUsers, o.soakWorkers)
	for wk := range o.soakWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients := map[int]*gqlclient.Client{}
			defer func() {
				// The users sign off: no idle HTTP connection of theirs
				// stays open on the server.
				for _, c := range clients {
					c.HTTP.CloseIdleConnections()
				}
			}()
			for n := 0; more(n); n++ {
				share := (users - wk + o.soakWorkers - 1) / o.soakWorkers // users wk, wk+W, wk+2W, …
				u := wk + o.soakWorkers*(n%share)
				c := clients[u]
				if c == nil {
					c = env.client(fmt.Sprintf("%s-user-%d", tag, u))
					clients[u] = c
				}
				err := soakConversation(ctx, env, c, o.soakTurns, u+n, func(kind string) {
					asks.Add(1)
					if kind != "COMPLETED" {
						failed.Add(1)
					}
				}, func() bool { return more(n) })
				if err != nil {
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
	wg.Wait()
	if firstErr != nil {
		return soakResult{}, firstErr
	}
	return soakResult{asks: int(asks.Load()), failed: int(failed.Load()), elapsed: time.Since(t0)}, nil
}

// soakConversation opens a WebSocket as c, creates a conversation and asks
// up to turns questions in it (while more reports true), following each
// answer to its end and reporting its last event's kind to done.
func soakConversation(ctx context.Context, env *benchEnv, c *gqlclient.Client, turns, seed int, done func(string), more func() bool) error {
	ws, conv, err := openConv(ctx, c, env.kb)
	if err != nil {
		return err
	}
	defer ws.Close()
	for turn := 0; turn < turns && more(); turn++ {
		kind, _, err := askAndFollow(ctx, c, ws, conv, soakQuestion(seed, turn))
		if err != nil {
			return err
		}
		done(kind)
	}
	return nil
}

// soakQuestion is turn's question of a soak conversation: questions about
// the bench document's sections and follow-ups, varied by seed, so that
// retrieval, the prompt's history and the token counts see many texts.
func soakQuestion(seed, turn int) string {
	section := (seed*7 + turn*3) % 20
	switch turn % 4 {
	case 0:
		return fmt.Sprintf("How large can an uploaded file of section %d be?", section)
	case 1:
		return "And what happens when a file is larger than that?"
	case 2:
		return fmt.Sprintf("How many business days do refunds in section %d take?", section)
	default:
		return fmt.Sprintf("Which error code does section %d return for a file that is too large?", section)
	}
}

// saveProfile writes the profile at url (for the heap, ?gc=1 forces a
// garbage collection first) to path.
func saveProfile(ctx context.Context, url, path string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("profile %s: %s", url, res.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// seriesByLabel returns the samples of metric name keyed by the value of
// their label key.
func seriesByLabel(m map[string]float64, name, key string) map[string]float64 {
	out := map[string]float64{}
	prefix := name + "{"
	for series, v := range m {
		if !strings.HasPrefix(series, prefix) {
			continue
		}
		for _, kv := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(series, prefix), "}"), ",") {
			if k, val, ok := strings.Cut(kv, "="); ok && k == key {
				out[strings.Trim(val, `"`)] = v
			}
		}
	}
	return out
}

// writeSoakReport prints the soak's tables.
func writeSoakReport(w io.Writer, o benchOptions, samples []soakSample) {
	mib := func(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }
	fmt.Fprintf(w, "### Memory over %d identical soaks (offline model, zero delay)\n\n", o.soakRounds)
	fmt.Fprintf(w, "A fresh child server. Each soak: %d workers for %s; each worker signs in as one user after another (%d users, new in every soak), opens a WebSocket, asks %d questions in a new conversation following each answer to its end over graphql-transport-ws, and closes the WebSocket. After the warm-up (two conversations per worker), after each soak and %s after the last, the figures are read once the server is idle, after a forced garbage collection (a heap profile with `?gc=1`).\n\n",
		o.soakWorkers, o.soakDuration, o.soakUsers, o.soakTurns, o.soakIdle)
	fmt.Fprintln(w, "| after | asks | failed | asks/s | Go heap in use | resident set | goroutines |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, s := range samples {
		rate := "–"
		if s.elapsed > 0 {
			rate = fmt.Sprintf("%.1f", float64(s.asks)/s.elapsed.Seconds())
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %.0f |\n", s.label, s.asks, s.failed, rate, mib(s.heapInuse), mib(s.rss), s.goroutines)
	}
	fmt.Fprintln(w)
	names := map[string]bool{}
	for _, s := range samples {
		for c := range s.entries {
			names[c] = true
		}
	}
	if len(names) > 0 {
		sorted := make([]string, 0, len(names))
		for c := range names {
			sorted = append(sorted, c)
		}
		sort.Strings(sorted)
		fmt.Fprintf(w, "Entries of the server's caches (`%s`; the bound is `%s`, – where the bound is a time):\n\n", metricCacheEntries, metricCacheBound)
		fmt.Fprint(w, "| cache | bound |")
		for _, s := range samples {
			fmt.Fprintf(w, " %s |", s.label)
		}
		fmt.Fprint(w, "\n|---|---:|")
		for range samples {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
		last := samples[len(samples)-1]
		for _, c := range sorted {
			bound := "–"
			if b, ok := last.bounds[c]; ok {
				bound = fmt.Sprintf("%.0f", b)
			}
			fmt.Fprintf(w, "| %s | %s |", c, bound)
			for _, s := range samples {
				fmt.Fprintf(w, " %.0f |", s.entries[c])
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Heap profiles (inuse_space after the forced collection): %s. What grew between two of them: `go tool pprof -sample_index=inuse_space -top -base %s %s`.\n\n",
		filepath.Dir(samples[0].profile), samples[0].profile, samples[len(samples)-1].profile)
}
