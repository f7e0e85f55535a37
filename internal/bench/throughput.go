package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ragchat/ragchat/internal/server/gqlclient"
)

// throughputQuestion is what the throughput workers ask: it matches the
// bench document, so the offline model answers from evidence.
const throughputQuestion = "How large can an uploaded file be?"

// benchThroughput measures completed asks per second with the offline
// model at zero delay: o.workers workers, each one user with its own
// WebSocket and conversation, ask over HTTP and follow each answer over
// graphql-transport-ws to its end, one after the other, for o.asks asks in
// all (or for o.duration). Besides the rate and the per-ask latency it
// reports the CPU time per ask of the server, of this process (the client)
// and of the rest of the machine (PostgreSQL and anything else), read from
// /proc, so that the reader sees what bounds the rate.
func benchThroughput(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	type worker struct {
		c    *gqlclient.Client
		ws   *gqlclient.WS
		conv string
	}
	workers := make([]worker, o.workers)
	for i := range workers {
		c := env.client(fmt.Sprintf("throughput-%d", i))
		ws, conv, err := openConv(ctx, c, env.kb)
		if err != nil {
			return err
		}
		defer ws.Close()
		workers[i] = worker{c, ws, conv}
		// Warm up: the first ask of a conversation also sets its title.
		for range 2 {
			if _, _, err := askAndFollow(ctx, c, ws, conv, throughputQuestion); err != nil {
				return fmt.Errorf("warm-up: %w", err)
			}
		}
	}

	var (
		left                       atomic.Int64
		mu                         sync.Mutex
		lat                        []time.Duration
		completed, failed, refused int
		firstErr                   error
		wg                         sync.WaitGroup
	)
	left.Store(int64(o.asks))
	prof, err := startThroughputProfile(ctx, env, o)
	if err != nil {
		return err
	}
	server0, self0, all0 := procCPU(env.pid()), selfCPU(), machineCPU()
	t0 := time.Now()
	more := func() bool {
		if o.duration > 0 {
			return time.Since(t0) < o.duration
		}
		return left.Add(-1) >= 0
	}
	for _, wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for more() {
				t := time.Now()
				kind, deltas, err := askAndFollow(ctx, wk.c, wk.ws, wk.conv, throughputQuestion)
				d := time.Since(t)
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				case kind != "COMPLETED":
					failed++
				default:
					completed++
					lat = append(lat, d)
					if deltas == 0 {
						refused++
					}
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	server1, self1, all1 := procCPU(env.pid()), selfCPU(), machineCPU()
	if firstErr != nil {
		return firstErr
	}
	if completed == 0 {
		return fmt.Errorf("no ask completed (%d failed)", failed)
	}
	rate := float64(completed) / elapsed.Seconds()
	env.results.throughputOK, env.results.asksPerSec, env.results.workers = true, rate, o.workers

	fmt.Fprintf(w, "### Completed asks per second (offline model, zero delay)\n\n")
	fmt.Fprintf(w, "%d workers, each one user with its own WebSocket and conversation, asking %q over HTTP and following each answer over graphql-transport-ws to COMPLETED, one after the other, %s after two warm-up asks each. The child server answers with the offline model streaming without pause (RAGCHAT_OFFLINE_TOKEN_DELAY < 0). Latency is ask sent → stream ended. CPU per ask is read from /proc: the server process's user + system time, this process's (the client), and the rest of the machine's busy time (PostgreSQL and anything else running) over the same interval.\n\n",
		o.workers, throughputQuestion, throughputScope(o))
	fmt.Fprintln(w, "| workers | completed | of which refused | failed | asks/s | latency p50 | latency p99 | server CPU per ask | client CPU per ask | rest of machine CPU per ask | ceiling if CPU-bound |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	perAsk := func(d time.Duration, ok bool) (string, time.Duration) {
		if !ok {
			return "n/a", 0
		}
		x := d / time.Duration(completed)
		return ms(x), x
	}
	srv, srvPer := perAsk(server1-server0, server0 >= 0 && server1 >= 0)
	cli, cliPer := perAsk(self1-self0, self0 >= 0 && self1 >= 0)
	rest, restPer := "n/a", time.Duration(0)
	ceiling := "n/a"
	if all0 >= 0 && all1 >= 0 && server0 >= 0 && self0 >= 0 {
		other := (all1 - all0) - (server1 - server0) - (self1 - self0)
		rest, restPer = perAsk(max(other, 0), true)
		if total := srvPer + cliPer + restPer; total > 0 {
			ceiling = fmt.Sprintf("%.0f /s", float64(runtime.NumCPU())*float64(time.Second)/float64(total))
		}
	}
	if server0 >= 0 && server1 >= 0 && all0 >= 0 && all1 >= 0 && self0 >= 0 {
		env.results.cpuOK, env.results.serverCPU, env.results.restCPU = true, srvPer, restPer
	}
	fmt.Fprintf(w, "| %d | %d | %d | %d | %.1f | %s | %s | %s | %s | %s | %s |\n\n", o.workers, completed, refused, failed, rate,
		ms(pct(lat, 50)), ms(pct(lat, 99)), srv, cli, rest, ceiling)
	fmt.Fprintf(w, "The ceiling is the machine's %d CPUs divided by the CPU time per ask of the three together: the rate the machine allows if nothing else runs and no one waits.\n\n", runtime.NumCPU())
	if err := prof.finish(ctx, env, completed, w); err != nil {
		return fmt.Errorf("profiles: %w", err)
	}
	return nil
}

// throughputScope describes how long the throughput part ran.
func throughputScope(o benchOptions) string {
	if o.duration > 0 {
		return "for " + o.duration.String()
	}
	return fmt.Sprintf("%d asks in all", o.asks)
}

// clockTick is the unit of the CPU times in /proc (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU returns the user + system CPU time of process pid from
// /proc/<pid>/stat, or -1 where /proc is not available.
func procCPU(pid int) time.Duration {
	// After the name: state is field 3, utime 14 and stime 15.
	return procStatCPU(pid, 11)
}

// procChildrenCPU returns the user + system CPU time of the children
// process pid waited for (cutime + cstime in /proc/<pid>/stat: the
// sandbox children of a server), or -1.
func procChildrenCPU(pid int) time.Duration {
	// After the name: cutime is field 16 and cstime 17.
	return procStatCPU(pid, 13)
}

// procStatCPU returns the sum of the two CPU times (in clock ticks) at
// field index i and i+1 after the command name in /proc/<pid>/stat, or -1
// where /proc is not available.
func procStatCPU(pid, i int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name may contain spaces; the fields after it do not.
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return -1
	}
	f := strings.Fields(s[end+1:])
	if len(f) < i+2 {
		return -1
	}
	ut, err1 := strconv.ParseInt(f[i], 10, 64)
	st, err2 := strconv.ParseInt(f[i+1], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(ut+st) * clockTick
}

// selfCPU returns this process's user + system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineCPU returns the busy CPU time of the whole machine (all CPUs,
// everything but idle and iowait) from /proc/stat, or -1.
func machineCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return -1
	}
	var busy int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 7 { // idle, iowait; steal, guest (guest is in user already)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return -1
		}
		busy += n
	}
	return time.Duration(busy) * clockTick
}
