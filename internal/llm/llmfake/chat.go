package llmfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

const fakeID = "chatcmpl-fake"

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeFailure(w, Failure{Status: http.StatusBadRequest, Body: `{"error":{"message":"invalid JSON body","type":"invalid_request_error"}}`})
		return
	}
	cfg := s.snapshot()
	if cfg.failFunc != nil {
		if f := cfg.failFunc(req); f != nil {
			writeFailure(w, *f)
			return
		}
	}
	if cfg.stall {
		select {
		case <-r.Context().Done():
			s.clientGone()
		case <-s.quit:
		}
		return
	}
	text := DefaultReply
	if cfg.reply != nil {
		text = cfg.reply(req)
	}
	if !req.Stream {
		s.writeCompletion(w, req, text)
		return
	}
	s.writeStream(w, r, req, text, cfg)
}

func promptTokens(req ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += countTokens(m.Content) + 4
	}
	return n
}

func (s *Server) writeCompletion(w http.ResponseWriter, req ChatRequest, text string) {
	p, c := promptTokens(req), countTokens(text)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(completion{
		ID: fakeID, Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model,
		Choices: []completionChoice{{Message: reply{Role: "assistant", Content: text}, FinishReason: "stop"}},
		Usage:   usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c},
	})
}

// split cuts text into chunks of n runes.
func split(text string, n int) []string {
	rs := []rune(text)
	var out []string
	for i := 0; i < len(rs); i += n {
		out = append(out, string(rs[i:min(i+n, len(rs))]))
	}
	return out
}

// writeStream sends text as SSE chunks, then a finish chunk, an optional
// usage chunk and [DONE]. It reports a client that goes away mid-stream.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, req ChatRequest, text string, cfg settings) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()

	created := time.Now().Unix()
	send := func(c chunk) bool {
		c.ID, c.Object, c.Created, c.Model = fakeID, "chat.completion.chunk", created, req.Model
		b, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		flusher.Flush()
		return r.Context().Err() == nil
	}
	wait := func(d time.Duration) bool {
		if d <= 0 {
			return r.Context().Err() == nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-r.Context().Done():
			return false
		case <-s.quit:
			return false
		}
	}
	gone := func() {
		if r.Context().Err() != nil {
			s.clientGone()
		}
	}

	if !wait(cfg.firstChunkDelay) || !send(chunk{Choices: []chunkChoice{{Delta: delta{Role: "assistant"}}}}) {
		gone()
		return
	}
	pieces := split(text, cfg.chunkRunes)
	for i, p := range pieces {
		if cfg.dropAfter >= 0 && i == cfg.dropAfter {
			dropConnection(w)
			return
		}
		if cfg.stallAfter >= 0 && i == cfg.stallAfter {
			select {
			case <-r.Context().Done():
				s.clientGone()
			case <-s.quit:
			}
			return
		}
		if i > 0 && !wait(cfg.chunkDelay) {
			gone()
			return
		}
		if !s.gate.pass(r.Context(), s.quit, i) {
			gone()
			return
		}
		if cfg.chunkText != nil {
			p = cfg.chunkText(i, p)
		}
		if !send(chunk{Choices: []chunkChoice{{Delta: delta{Content: p}}}}) {
			gone()
			return
		}
	}
	if cfg.dropAfter >= 0 && cfg.dropAfter >= len(pieces) {
		dropConnection(w)
		return
	}
	stop := "stop"
	if !send(chunk{Choices: []chunkChoice{{FinishReason: &stop}}}) {
		gone()
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage && !cfg.omitUsage {
		p, c := promptTokens(req), len(pieces)
		if !send(chunk{Choices: []chunkChoice{}, Usage: &usage{PromptTokens: p, CompletionTokens: c, TotalTokens: p + c}}) {
			gone()
			return
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flusher.Flush()
}

// dropConnection closes the TCP connection under an in-flight response,
// so the client sees the stream break without an end marker.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
		}
	}
}
