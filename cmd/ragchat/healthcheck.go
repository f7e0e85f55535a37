package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// runHealthcheck asks the local server's /readyz (or /healthz with
// --live) and fails unless it answers 200. It is the container image's
// health check: the image holds no shell and no HTTP client but this
// binary (deploy/compose.yaml).
func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("healthcheck", stderr)
	live := fs.Bool("live", false, "check liveness (/healthz) instead of readiness (/readyz)")
	url := fs.String("url", "", "the URL to check (default: /readyz on the port of RAGCHAT_ADDR, on 127.0.0.1)")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	target := *url
	if target == "" {
		path := "/readyz"
		if *live {
			path = "/healthz"
		}
		target = "http://" + localAddr(os.Getenv("RAGCHAT_ADDR")) + path
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return usagef("--url: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s %s", target, resp.Status, strings.TrimSpace(string(body)))
	}
	fmt.Fprintln(stdout, strings.TrimSpace(string(body)))
	return nil
}

// localAddr turns a listen address (RAGCHAT_ADDR, default 127.0.0.1:8080)
// into the address to dial on this host: a wildcard or empty host becomes
// 127.0.0.1.
func localAddr(listen string) string {
	if strings.TrimSpace(listen) == "" {
		listen = "127.0.0.1:8080"
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
