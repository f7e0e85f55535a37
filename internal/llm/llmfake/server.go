// Package llmfake is an in-process OpenAI-compatible server for tests. It
// speaks the real wire format (SSE chat streams, JSON chat completions,
// embeddings) and has knobs to script replies and inject failures: error
// statuses with Retry-After, slow or stalled streams, and connections dropped
// mid-stream, and a gate that holds streams mid-answer until the test lets
// them go on (Hold, Release). It records requests and reports when a
// client abandons a stream, so tests can prove that cancellation reaches
// the upstream. internal/tools/fakemodel serves it as a process, for the
// browser tests.
package llmfake

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultReply is the answer text when no reply is scripted.
const DefaultReply = "This is the fake model's answer."

// maxRecorded bounds the recorded requests.
const maxRecorded = 100

// Request is one recorded HTTP request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Failure makes a request fail with Status. RetryAfter, when set, is sent
// as the Retry-After header; Body overrides the OpenAI-style error JSON.
type Failure struct {
	Status     int
	RetryAfter string
	Body       string
}

// Server is a fake OpenAI-compatible API. Its knobs are safe to change
// while requests are in flight.
type Server struct {
	// URL is the base URL to configure clients with, ending in "/v1".
	URL string

	srv  *httptest.Server
	quit chan struct{}
	once sync.Once

	mu       sync.Mutex
	cfg      settings
	failures []Failure
	recorded []Request

	count       atomic.Int64
	abandoned   atomic.Int64
	disconnects chan struct{}
	gate        *gate // Hold, Release (gate.go)
}

// New starts a fake server. Close it when done.
func New() *Server {
	s := &Server{
		quit:        make(chan struct{}),
		cfg:         settings{chunkRunes: 4, dropAfter: -1, stallAfter: -1, embeddingDims: 16},
		disconnects: make(chan struct{}, 1000),
		gate:        newGate(),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
	s.srv = httptest.NewServer(s.record(mux))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server. Stalled and streaming handlers end at once.
func (s *Server) Close() {
	s.once.Do(func() { close(s.quit) })
	s.srv.Close()
}

// record counts and records every request, then applies a queued failure
// or passes it on.
func (s *Server) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.count.Add(1)
		s.mu.Lock()
		s.recorded = append(s.recorded, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		if len(s.recorded) > maxRecorded {
			s.recorded = s.recorded[len(s.recorded)-maxRecorded:]
		}
		var fail *Failure
		if len(s.failures) > 0 {
			f := s.failures[0]
			s.failures = s.failures[1:]
			fail = &f
		}
		s.mu.Unlock()
		if fail != nil {
			writeFailure(w, *fail)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeFailure(w http.ResponseWriter, f Failure) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	body := f.Body
	if body == "" {
		body = `{"error":{"message":"` + http.StatusText(f.Status) + ` (injected)","type":"fake_error","code":null}}`
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, body)
}

// SetReply makes every chat request answer text.
func (s *Server) SetReply(text string) {
	s.SetReplyFunc(func(ChatRequest) string { return text })
}

// SetReplyFunc scripts the answer per request.
func (s *Server) SetReplyFunc(f func(ChatRequest) string) { setLocked(s, &s.cfg.reply, f) }

// SetChunkRunes sets how many runes of the reply each stream chunk carries
// (default 4).
func (s *Server) SetChunkRunes(n int) { setLocked(s, &s.cfg.chunkRunes, max(n, 1)) }

// SetChunkDelay pauses between stream chunks.
func (s *Server) SetChunkDelay(d time.Duration) { setLocked(s, &s.cfg.chunkDelay, d) }

// SetChunkText rewrites each content chunk of a stream as it is sent: f
// gets the chunk's index and text and returns the text to send (nil sends
// the text as it is). Benchmarks stamp chunks with their send time this
// way, so that a receiver can tell each token's delay.
func (s *Server) SetChunkText(f func(i int, text string) string) { setLocked(s, &s.cfg.chunkText, f) }

// SetFirstChunkDelay pauses after the stream's headers, before its first
// chunk.
func (s *Server) SetFirstChunkDelay(d time.Duration) { setLocked(s, &s.cfg.firstChunkDelay, d) }

// FailNext makes the next n requests (to any endpoint) fail with f.
func (s *Server) FailNext(n int, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, f)
	}
}

// SetFailFunc makes a chat request fail when f returns a failure for it
// (nil: answered as usual), e.g. to fail only the title requests; f nil
// turns it off. Retries of a failed request are asked again.
func (s *Server) SetFailFunc(f func(ChatRequest) *Failure) { setLocked(s, &s.cfg.failFunc, f) }

// SetDropAfter makes streaming requests drop the connection, without an
// end-of-stream marker, after k content chunks; a negative k turns it off.
func (s *Server) SetDropAfter(k int) { setLocked(s, &s.cfg.dropAfter, k) }

// SetStallAfter makes streaming requests send k content chunks and then
// nothing more, keeping the connection open, until the client gives up (or
// the server closes): a model that stalls mid-answer. A negative k turns it
// off.
func (s *Server) SetStallAfter(k int) { setLocked(s, &s.cfg.stallAfter, k) }

// SetStall makes chat requests send no byte at all until the client gives
// up (or the server closes).
func (s *Server) SetStall(on bool) { setLocked(s, &s.cfg.stall, on) }

// SetOmitUsage makes streams ignore stream_options.include_usage.
func (s *Server) SetOmitUsage(on bool) { setLocked(s, &s.cfg.omitUsage, on) }

// SetEmbeddingDims sets the width of embeddings when the request does not
// ask for "dimensions" (default 16).
func (s *Server) SetEmbeddingDims(n int) { setLocked(s, &s.cfg.embeddingDims, n) }

// SetReverseEmbeddings returns embedding data in reverse order (with correct
// "index" fields), as a provider is allowed to.
func (s *Server) SetReverseEmbeddings(on bool) { setLocked(s, &s.cfg.reverseEmbed, on) }

// setLocked sets *field, a field of s.cfg, to v under s's lock.
func setLocked[T any](s *Server, field *T, v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*field = v
}

// RequestCount is the number of requests received.
func (s *Server) RequestCount() int { return int(s.count.Load()) }

// Requests returns the last recorded requests, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.recorded...)
}

// LastRequest returns the most recent request (zero if none).
func (s *Server) LastRequest() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.recorded) == 0 {
		return Request{}
	}
	return s.recorded[len(s.recorded)-1]
}

// Disconnects receives once for every chat stream the client abandoned
// (closed the connection or cancelled the request) before it finished.
func (s *Server) Disconnects() <-chan struct{} { return s.disconnects }

// AbandonedStreams counts the streams the client abandoned.
func (s *Server) AbandonedStreams() int { return int(s.abandoned.Load()) }

func (s *Server) clientGone() {
	s.abandoned.Add(1)
	select {
	case s.disconnects <- struct{}{}:
	default:
	}
}

// snapshot returns the knobs for one request.
func (s *Server) snapshot() settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// settings are the knobs the Set methods turn (Server.cfg, under mu).
type settings struct {
	reply           func(ChatRequest) string
	failFunc        func(ChatRequest) *Failure
	chunkRunes      int
	chunkDelay      time.Duration
	firstChunkDelay time.Duration
	chunkText       func(i int, text string) string
	dropAfter       int
	stallAfter      int
	stall           bool
	omitUsage       bool
	embeddingDims   int
	reverseEmbed    bool
}
