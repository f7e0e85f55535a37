package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
)

func TestChatStreamTextAndUsage(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetReply("超过限制时返回 ERR_FILE_TOO_LARGE [C1]。")
	srv.SetChunkRunes(3)
	req := userPrompt("上传文件超过限制返回什么错误码？")
	req.MaxTokens, req.Temperature = 256, 0.2
	s, err := m.ChatStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deltas, err := readAll(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(deltas, ""); got != "超过限制时返回 ERR_FILE_TOO_LARGE [C1]。" || len(deltas) < 2 {
		t.Fatalf("deltas %q", deltas)
	}
	u := s.Usage()
	if u.Estimated || u.CompletionTokens != len(deltas) || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v, want the provider's", u)
	}
	if s.Model() != "fake-chat" {
		t.Errorf("model = %q", s.Model())
	}

	last := srv.LastRequest()
	if last.Path != "/v1/chat/completions" || last.Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("request %s auth %q", last.Path, last.Header.Get("Authorization"))
	}
	var body llmfake.ChatRequest
	if err := json.Unmarshal(last.Body, &body); err != nil {
		t.Fatal(err)
	}
	if !body.Stream || body.StreamOptions == nil || !body.StreamOptions.IncludeUsage || body.Model != "fake-chat" ||
		body.MaxTokens != 256 || body.LastUser() != "上传文件超过限制返回什么错误码？" || len(body.Messages) != 2 {
		t.Errorf("request body = %s", last.Body)
	}
}

func TestChatStreamEstimatesMissingUsage(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetOmitUsage(true)
	srv.SetReply("Hello there, world.")
	s, err := m.ChatStream(context.Background(), userPrompt("hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := readAll(s); err != nil {
		t.Fatal(err)
	}
	if u := s.Usage(); !u.Estimated || u.CompletionTokens != llm.EstimateTokens("Hello there, world.") || u.PromptTokens <= 0 {
		t.Errorf("usage = %+v, want an estimate", u)
	}
}

// TestChatStreamUsesCallersPromptCount: when the provider reports no
// usage, a prompt the caller counted (PromptTokens) is not tokenised
// again; only the completion is.
func TestChatStreamUsesCallersPromptCount(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetOmitUsage(true)
	srv.SetReply("Hello there, world.")
	req := userPrompt("hi")
	req.PromptTokens = 1234
	s, err := m.ChatStream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := readAll(s); err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{PromptTokens: 1234, CompletionTokens: llm.EstimateTokens("Hello there, world."), Estimated: true}
	want.TotalTokens = want.PromptTokens + want.CompletionTokens
	if u := s.Usage(); u != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
}

func TestChatStreamEmptyAnswer(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetReply("")
	s, err := m.ChatStream(context.Background(), userPrompt("hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d, err := readAll(s); err != nil || len(d) != 0 {
		t.Fatalf("deltas %q, err %v", d, err)
	}
}

func TestChatStreamRetriesBeforeFirstToken(t *testing.T) {
	tests := []struct {
		name      string
		failure   llmfake.Failure
		wantSleep time.Duration // 0: any backoff
	}{
		{"429 with Retry-After", llmfake.Failure{Status: http.StatusTooManyRequests, RetryAfter: "7"}, 7 * time.Second},
		{"429 with an HTTP date", llmfake.Failure{Status: http.StatusTooManyRequests, RetryAfter: time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)}, -1},
		{"500", llmfake.Failure{Status: http.StatusInternalServerError}, 0},
		{"502", llmfake.Failure{Status: http.StatusBadGateway}, 0},
		{"503", llmfake.Failure{Status: http.StatusServiceUnavailable}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, m, sl := setup(t, func(c *openai.Config) {
				c.MaxRetries = 2
				c.RetryBaseDelay = time.Millisecond
				c.MaxRetryDelay = 2 * time.Hour
			})
			srv.SetReply("ok then")
			srv.FailNext(2, tc.failure)
			s, err := m.ChatStream(context.Background(), userPrompt("q"))
			if err != nil {
				t.Fatalf("ChatStream after 2 failures = %v", err)
			}
			defer s.Close()
			if d, err := readAll(s); err != nil || strings.Join(d, "") != "ok then" {
				t.Fatalf("deltas %q err %v", d, err)
			}
			if n := srv.RequestCount(); n != 3 {
				t.Errorf("requests = %d, want 3", n)
			}
			waits := sl.all()
			if len(waits) != 2 {
				t.Fatalf("waits = %v", waits)
			}
			for _, w := range waits {
				switch {
				case tc.wantSleep > 0 && w != tc.wantSleep:
					t.Errorf("wait %v, want Retry-After %v", w, tc.wantSleep)
				case tc.wantSleep < 0 && (w < 3*time.Second || w > 5*time.Second):
					t.Errorf("wait %v, want about 5s", w)
				case tc.wantSleep == 0 && (w <= 0 || w > 4*time.Millisecond):
					t.Errorf("backoff %v outside (0, 4ms]", w)
				}
			}
		})
	}
}

func TestChatStreamRetryLimits(t *testing.T) {
	tests := []struct {
		name     string
		failure  llmfake.Failure
		kind     llm.ErrorKind
		requests int
		code     domain.FailureCode
	}{
		{"5xx until retries run out", llmfake.Failure{Status: 503}, llm.KindUnavailable, 3, domain.FailureModelError},
		{"429 until retries run out", llmfake.Failure{Status: 429}, llm.KindRateLimited, 3, domain.FailureRateLimited},
		{"400 is never retried", llmfake.Failure{Status: 400}, llm.KindBadRequest, 1, domain.FailureModelError},
		{"404 is never retried", llmfake.Failure{Status: 404}, llm.KindBadRequest, 1, domain.FailureModelError},
		{"401 is never retried", llmfake.Failure{Status: 401}, llm.KindUpstream, 1, domain.FailureModelError},
		{"exhausted quota is not retried", llmfake.Failure{Status: 429, Body: `{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}`}, llm.KindRateLimited, 1, domain.FailureRateLimited},
		{"Retry-After beyond MaxRetryDelay", llmfake.Failure{Status: 429, RetryAfter: "3600"}, llm.KindRateLimited, 1, domain.FailureRateLimited},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, m, _ := setup(t, func(c *openai.Config) { c.MaxRetries = 2 })
			srv.FailNext(10, tc.failure)
			_, err := m.ChatStream(context.Background(), userPrompt("q"))
			e, ok := llm.AsError(err)
			if !ok || e.Kind != tc.kind || e.Status != tc.failure.Status {
				t.Fatalf("err = %v, want kind %s status %d", err, tc.kind, tc.failure.Status)
			}
			if n := srv.RequestCount(); n != tc.requests {
				t.Errorf("requests = %d, want %d", n, tc.requests)
			}
			if c := llm.FailureCode(err); c != tc.code {
				t.Errorf("FailureCode = %s, want %s", c, tc.code)
			}
		})
	}
}

func TestChatStreamNoRetryAfterFirstToken(t *testing.T) {
	srv, m, _ := setup(t, func(c *openai.Config) { c.MaxRetries = 3 })
	srv.SetReply("one two three four five six")
	srv.SetChunkRunes(4)
	srv.SetDropAfter(2)
	s, err := m.ChatStream(context.Background(), userPrompt("q"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deltas, err := readAll(s)
	if strings.Join(deltas, "") != "one two " {
		t.Errorf("deltas before the drop = %q", deltas)
	}
	if llm.KindOf(err) != llm.KindUnavailable {
		t.Fatalf("err = %v, want KindUnavailable", err)
	}
	if n := srv.RequestCount(); n != 1 {
		t.Errorf("requests = %d: a stream that sent text must not be retried", n)
	}
	if _, again := s.Recv(); again == nil || llm.KindOf(again) != llm.KindUnavailable {
		t.Errorf("Recv after failure = %v", again)
	}
}

func TestChatStreamDropBeforeFirstTokenIsRetried(t *testing.T) {
	srv, m, _ := setup(t, func(c *openai.Config) { c.MaxRetries = 2 })
	srv.SetDropAfter(0)
	_, err := m.ChatStream(context.Background(), userPrompt("q"))
	if llm.KindOf(err) != llm.KindUnavailable {
		t.Fatalf("err = %v", err)
	}
	if n := srv.RequestCount(); n != 3 {
		t.Errorf("requests = %d, want 3 (dropped before any text, so retried)", n)
	}
}

func TestChatStreamFirstTokenTimeout(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*llmfake.Server)
	}{
		{"no bytes at all", func(s *llmfake.Server) { s.SetStall(true) }},
		{"headers but no chunk", func(s *llmfake.Server) { s.SetFirstChunkDelay(time.Hour) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, m, _ := setup(t, func(c *openai.Config) { c.FirstTokenTimeout = 50 * time.Millisecond; c.MaxRetries = -1 })
			tc.setup(srv)
			_, err := m.ChatStream(context.Background(), userPrompt("q"))
			if llm.KindOf(err) != llm.KindTimeout || llm.FailureCode(err) != domain.FailureModelTimeout {
				t.Fatalf("err = %v, want KindTimeout", err)
			}
			waitDisconnect(t, srv)
		})
	}
}

func TestChatStreamWholeRequestTimeout(t *testing.T) {
	srv, m, _ := setup(t, func(c *openai.Config) { c.Timeout = 100 * time.Millisecond })
	srv.SetReply("first chunk then nothing")
	srv.SetChunkDelay(time.Hour)
	s, err := m.ChatStream(context.Background(), userPrompt("q"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deltas, err := readAll(s)
	if len(deltas) != 1 || llm.KindOf(err) != llm.KindTimeout {
		t.Fatalf("deltas %q err %v, want one delta then KindTimeout", deltas, err)
	}
	waitDisconnect(t, srv)
}

// TestChatStreamIdleTimeout: a model that sends three tokens and then
// stalls (connection open, nothing more) fails with KindTimeout
// (MODEL_TIMEOUT) after the inter-token idle timeout, not after the
// whole-request timeout, and the upstream request is aborted; a stream that
// keeps sending within the idle timeout is unaffected.
func TestChatStreamIdleTimeout(t *testing.T) {
	t.Run("stall after three tokens", func(t *testing.T) {
		srv, m, _ := setup(t, func(c *openai.Config) {
			c.IdleTimeout = 50 * time.Millisecond
			c.FirstTokenTimeout = guard
			c.Timeout = time.Hour
		})
		srv.SetReply("one two three four five six")
		srv.SetChunkRunes(4)
		srv.SetStallAfter(3)
		s, err := m.ChatStream(context.Background(), userPrompt("q"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		deltas, err := readAll(s)
		if len(deltas) != 3 || strings.Join(deltas, "") != "one two thre" {
			t.Errorf("deltas before the stall = %q", deltas)
		}
		if llm.KindOf(err) != llm.KindTimeout || llm.FailureCode(err) != domain.FailureModelTimeout || !strings.Contains(err.Error(), "idle") {
			t.Fatalf("err = %v, want an idle KindTimeout", err)
		}
		waitDisconnect(t, srv)
		if n := srv.RequestCount(); n != 1 {
			t.Errorf("requests = %d: a stream that sent text is not retried", n)
		}
	})
	t.Run("steady stream", func(t *testing.T) {
		srv, m, _ := setup(t, func(c *openai.Config) { c.IdleTimeout = guard })
		srv.SetReply("one two three four five six")
		srv.SetChunkRunes(2)
		srv.SetChunkDelay(5 * time.Millisecond)
		s, err := m.ChatStream(context.Background(), userPrompt("q"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if d, err := readAll(s); err != nil || strings.Join(d, "") != "one two three four five six" {
			t.Fatalf("deltas %q err %v", d, err)
		}
	})
}

func TestChatStreamCloseAbortsUpstream(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetReply(strings.Repeat("slow answer ", 50))
	srv.SetChunkDelay(time.Hour)
	s, err := m.ChatStream(context.Background(), userPrompt("q"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil {
		t.Fatal(err)
	}
	// A reader blocked on the next delta is released by Close.
	errc := make(chan error, 1)
	go func() { _, err := s.Recv(); errc <- err }()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitDisconnect(t, srv)
	if err := <-errc; llm.KindOf(err) != llm.KindCanceled {
		t.Errorf("blocked Recv after Close = %v, want KindCanceled", err)
	}
	if _, err := s.Recv(); llm.KindOf(err) != llm.KindCanceled {
		t.Errorf("Recv after Close = %v", err)
	}
	_ = s.Close()
}

func TestChatStreamCancelAbortsUpstream(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetReply(strings.Repeat("slow answer ", 50))
	srv.SetChunkDelay(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := m.ChatStream(ctx, userPrompt("q"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Recv(); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := s.Recv(); errc <- err }()
	cancel()
	if err := <-errc; llm.KindOf(err) != llm.KindCanceled || llm.FailureCode(err) != domain.FailureCancelled {
		t.Errorf("Recv after cancel = %v, want KindCanceled", err)
	}
	waitDisconnect(t, srv)
}

func TestChatStreamCancelWhileWaitingForFirstToken(t *testing.T) {
	srv, m, _ := setup(t, nil)
	srv.SetStall(true)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := m.ChatStream(ctx, userPrompt("q")); errc <- err }()
	for srv.RequestCount() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; llm.KindOf(err) != llm.KindCanceled {
		t.Fatalf("err = %v, want KindCanceled", err)
	}
	waitDisconnect(t, srv)
}

// TestChatStreamKeepsWithinMaxTokens: a provider that ignores max_tokens
// (the fake writes its whole reply whatever the request says) still gives
// an answer of at most MaxTokens tokens, cut on a rune boundary, ending
// as a normal answer with usage within the bound; an answer that fits is
// untouched and reports the provider's usage.
func TestChatStreamKeepsWithinMaxTokens(t *testing.T) {
	reply := strings.Repeat("超过限制时返回 ERR_FILE_TOO_LARGE [C1]。The upload limit is twenty megabytes per file. ", 20)
	for _, tc := range []struct {
		name      string
		maxTokens int
		cut       bool
	}{
		{"far below", 20, true},
		{"one token", 1, true},
		{"just below", llm.EstimateTokens(reply) - 5, true},
		{"enough", llm.EstimateTokens(reply) + 50, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, m, _ := setup(t, nil)
			srv.SetReply(reply)
			srv.SetChunkRunes(7)
			req := userPrompt("上传文件超过限制返回什么错误码？")
			req.MaxTokens = tc.maxTokens
			s, err := m.ChatStream(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			deltas, err := readAll(s)
			if err != nil {
				t.Fatalf("a capped answer ends as an answer, got %v", err)
			}
			got := strings.Join(deltas, "")
			if !strings.HasPrefix(reply, got) || !utf8.ValidString(got) {
				t.Fatalf("answer %q is not a prefix of the reply on a rune boundary", got)
			}
			n, u := llm.EstimateTokens(got), s.Usage()
			if n > tc.maxTokens || u.CompletionTokens > tc.maxTokens || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
				t.Fatalf("%d tokens kept, usage %+v, max %d", n, u, tc.maxTokens)
			}
			if cut := got != reply; cut != tc.cut {
				t.Fatalf("cut %v, want %v (%d of %d tokens)", cut, tc.cut, n, llm.EstimateTokens(reply))
			}
			if tc.cut && n < tc.maxTokens*3/4 {
				t.Fatalf("cut too early: %d tokens of %d allowed", n, tc.maxTokens)
			}
			if !tc.cut && u.Estimated {
				t.Fatalf("an uncut answer reports the provider's usage, got %+v", u)
			}
		})
	}
}
