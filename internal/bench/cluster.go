package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// benchCluster is several child servers on one PostgreSQL database sharing
// one broker: asks go to servers[0] ("A"), which runs the answers;
// subscribers and cancels go to the others.
type benchCluster struct {
	broker  string
	servers []*benchServer
}

// startCluster starts n servers with broker (memory, postgres or nats), one
// after the other (each claims its instance identity on the database).
func (f *benchFixture) startCluster(ctx context.Context, broker string, n int, natsURL string) (*benchCluster, error) {
	extra := []string{"RAGCHAT_BROKER=" + broker}
	if broker == "nats" {
		extra = append(extra, "RAGCHAT_NATS_URL="+natsURL)
	}
	c := &benchCluster{broker: broker}
	for i := range n {
		s, err := f.startServer(ctx, string(rune('A'+i)), extra...)
		if err != nil {
			c.stop()
			return nil, fmt.Errorf("%s cluster: %w", broker, err)
		}
		c.servers = append(c.servers, s)
	}
	return c, nil
}

// owner is the server that takes the asks and runs the answers.
func (c *benchCluster) owner() *benchServer { return c.servers[0] }

// other returns the i-th server other than the owner, round robin, or the
// owner itself in a cluster of one.
func (c *benchCluster) other(i int) *benchServer {
	if len(c.servers) == 1 {
		return c.servers[0]
	}
	return c.servers[1+i%(len(c.servers)-1)]
}

// stop stops every server.
func (c *benchCluster) stop() {
	for _, s := range c.servers {
		s.stop()
	}
}

// benchCross runs the cross-instance parts: for each broker a cluster (one
// server for memory, the floor; o.instances for postgres and nats) runs
// lag at every concurrency, then cancel; the tables compare the brokers.
func benchCross(ctx context.Context, fx *benchFixture, o benchOptions, report, stderr io.Writer) error {
	var (
		lags    []lagResult
		cancels []cancelResult
	)
	for _, broker := range o.brokers {
		n := o.instances
		if broker == "memory" {
			n = 1
		}
		fmt.Fprintf(stderr, "bench: %s cluster of %d …\n", broker, n)
		cl, err := fx.startCluster(ctx, broker, n, o.natsURL)
		if err != nil {
			return err
		}
		err = func() error {
			defer cl.stop()
			if o.only["lag"] {
				for _, streams := range o.concurrency {
					fmt.Fprintf(stderr, "bench: lag, %s, %d streams …\n", broker, streams)
					r, err := lagRun(ctx, fx, cl, streams, o)
					if err != nil {
						return fmt.Errorf("lag (%s, %d streams): %w", broker, streams, err)
					}
					lags = append(lags, r)
				}
			}
			if o.only["cancel"] {
				fmt.Fprintf(stderr, "bench: cancel, %s …\n", broker)
				rs, err := cancelRun(ctx, fx, cl, o)
				if err != nil {
					return fmt.Errorf("cancel (%s): %w", broker, err)
				}
				cancels = append(cancels, rs...)
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(report, "### Across instances\n\n")
	fmt.Fprintf(report, "Reproduce (a NATS server for the nats broker comes from `go run ./internal/tools/natsserver -- …`, which sets RAGCHAT_NATS_URL):\n\n")
	fmt.Fprintf(report, "```sh\n%s\n```\n\n", reproduceCommand(o))
	if o.only["lag"] {
		writeLagTable(report, lags, o)
	}
	if o.only["cancel"] {
		writeCancelTable(report, cancels, o)
	}
	return nil
}

// placeholderFlags are the flags whose values reproduceCommand leaves out.
var placeholderFlags = []string{"database-url", "nats-url", "out", "server-bin"}

// placeholderFlag reports whether the argument a is one of
// placeholderFlags (-flag, --flag, -flag=value or --flag=value).
func placeholderFlag(a string) bool {
	name, ok := strings.CutPrefix(a, "-")
	if !ok {
		return false
	}
	name = strings.TrimPrefix(name, "-")
	name, _, _ = strings.Cut(name, "=")
	return slices.Contains(placeholderFlags, name)
}

// reproduceCommand is the command line of this run, with the URLs left as
// placeholders and without the paths of --out and --server-bin.
func reproduceCommand(o benchOptions) string {
	var b strings.Builder
	b.WriteString("go run ./internal/tools/natsserver -- bin/ragchat-bench")
	skip := false
	for _, a := range o.args {
		switch {
		case skip:
			skip = false
			continue
		case placeholderFlag(a):
			skip = !strings.Contains(a, "=") // the value is the next argument
			continue
		}
		b.WriteString(" " + a)
	}
	b.WriteString(" --database-url \"$DATABASE_URL\"")
	return b.String()
}

// deadlineGuard bounds one step of a cross-instance part: a hang guard, not
// a measurement.
const deadlineGuard = 2 * time.Minute
