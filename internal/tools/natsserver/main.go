// Command natsserver runs a real NATS server (github.com/nats-io/nats-server/v2)
// in-process, for `ragchat-bench`'s nats broker and for trying
// RAGCHAT_BROKER=nats locally. It is a separate command so that the ragchat
// binary does not carry a NATS server (about 13 MB) that production never
// runs.
//
// Without a command it prints the client URL on stdout and serves until
// interrupted. With one (after --), it runs the command with
// RAGCHAT_NATS_URL set to the server's URL, passes its standard streams
// through, and exits with its status when it ends:
//
//	go run ./internal/tools/natsserver -- bin/ragchat-bench --only lag,cancel --database-url "$DATABASE_URL"
//	go run ./internal/tools/natsserver -addr 127.0.0.1:4222
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "host:port to listen on (port 0: any free port)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: natsserver [-addr host:port] [-- command args…]")
		flag.PrintDefaults()
	}
	flag.Parse()
	code, err := run(*addr, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsserver:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// run starts the server, then runs args (or waits for a signal), and
// returns the exit code.
func run(addr string, args []string) (int, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return 2, err
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return 2, err
	}
	if port == 0 {
		port = -1 // nats-server's "any free port"
	}
	s, err := natsserver.NewServer(&natsserver.Options{Host: host, Port: port, NoLog: true, NoSigs: true})
	if err != nil {
		return 1, err
	}
	go s.Start()
	defer func() {
		s.Shutdown()
		s.WaitForShutdown()
	}()
	if !s.ReadyForConnections(10 * time.Second) {
		return 1, errors.New("the NATS server did not start")
	}
	url := s.ClientURL()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) == 0 {
		fmt.Println(url)
		<-ctx.Done()
		return 0, nil
	}
	fmt.Fprintln(os.Stderr, "natsserver: serving", url)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "RAGCHAT_NATS_URL="+url)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return 1, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM) // pass an interrupt on, then wait
		err = <-done
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return max(ee.ExitCode(), 1), nil // -1: killed by a signal
	}
	return 0, err
}
