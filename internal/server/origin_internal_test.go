package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOriginPolicy(t *testing.T) {
	p := newOriginPolicy([]string{"https://app.example", "http://localhost:*", "https://*.example.org/"})
	cases := []struct {
		origin string
		want   bool
	}{
		{"https://app.example", true},
		{"HTTPS://APP.EXAMPLE", true},
		{"https://app.example.evil", false},
		{"http://localhost:3000", true},
		{"http://localhost", false},
		{"http://localhost:3000/x", false},
		{"http://localhost:1@evil.example", false},
		{"https://a.example.org", true},
		{"https://example.org", false},
		{"https://a.b.example.org", true},
		{"https://evil.com/.example.org", false},
		{"null", false},
		{"", false},
	}
	for _, tc := range cases {
		if got := p.allowed(tc.origin); got != tc.want {
			t.Errorf("allowed(%q) = %v, want %v", tc.origin, got, tc.want)
		}
	}
}

func TestWebSocketOriginCheck(t *testing.T) {
	p := newOriginPolicy(nil)
	cases := []struct {
		origin string
		want   bool
	}{
		{"", true},                        // not a browser
		{"http://api.example:8080", true}, // same origin
		{"https://other.example", false},  // cross-site browser
		{"::not a url", false},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", "http://api.example:8080/graphql", nil)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if got := p.checkWebSocket(r); got != tc.want {
			t.Errorf("checkWebSocket(%q) = %v, want %v", tc.origin, got, tc.want)
		}
	}
}

func TestTruncateCloseReason(t *testing.T) {
	long := "Forbidden: " + strings.Repeat("长", 100)
	got := truncateCloseReason(long)
	if len(got) > 123 || !utf8.ValidString(got) || !strings.HasPrefix(long, got) {
		t.Fatalf("truncated to %d bytes, valid=%v", len(got), utf8.ValidString(got))
	}
	if truncateCloseReason("short") != "short" {
		t.Fatal("short reason changed")
	}
}
