package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheck runs the command against a server that answers each
// path with a fixed status: it succeeds only on a 200, asks /readyz by
// default and /healthz with --live.
func TestHealthcheck(t *testing.T) {
	status := map[string]int{"/readyz": http.StatusServiceUnavailable, "/healthz": http.StatusOK}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status[r.URL.Path])
		_, _ = io.WriteString(w, `{"status":"`+r.URL.Path+`"}`)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	cases := []struct {
		name    string
		args    []string
		ok      bool
		mention string
	}{
		{"readiness by default fails on 503", nil, false, "/readyz"},
		{"liveness", []string{"--live"}, true, "/healthz"},
		{"an explicit URL", []string{"--url", srv.URL + "/healthz"}, true, "/healthz"},
		{"nothing listening", []string{"--url", "http://127.0.0.1:1/readyz"}, false, "127.0.0.1:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("RAGCHAT_ADDR", addr)
			var out strings.Builder
			err := runHealthcheck(context.Background(), c.args, &out, io.Discard)
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok=%v", err, c.ok)
			}
			got := out.String()
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, c.mention) {
				t.Errorf("%q does not mention %s", got, c.mention)
			}
		})
	}
}

// TestLocalAddr maps listen addresses to the address a local client
// dials.
func TestLocalAddr(t *testing.T) {
	for listen, want := range map[string]string{
		"":               "127.0.0.1:8080",
		"0.0.0.0:8080":   "127.0.0.1:8080",
		":9000":          "127.0.0.1:9000",
		"[::]:8080":      "127.0.0.1:8080",
		"10.0.0.5:8081":  "10.0.0.5:8081",
		"127.0.0.1:8080": "127.0.0.1:8080",
	} {
		if got := localAddr(listen); got != want {
			t.Errorf("localAddr(%q) = %q, want %q", listen, got, want)
		}
	}
}
