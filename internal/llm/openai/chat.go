package openai

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// ChatStream starts a streamed answer. It returns once the first answer
// token has arrived (or the answer ended empty), retrying rate limits, 5xx
// answers and connection failures before that point; after it, nothing is
// retried. Each attempt must produce its first token within
// FirstTokenTimeout, and every later token within IdleTimeout of the one
// before (else KindTimeout); the whole request, streaming included, is
// bounded by Timeout. Closing the stream or cancelling ctx
// aborts the HTTP request.
func (m *Model) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	creq := m.chatRequest(req)
	creq.Stream = true
	creq.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}

	reqCtx, cancel := m.requestContext(ctx)
	var st *stream
	err := m.withRetry(ctx, reqCtx, func() error {
		var err error
		st, err = m.openStream(ctx, reqCtx, creq, req)
		return err
	})
	if err != nil {
		cancel()
		return nil, err
	}
	st.cancelRequest = cancel
	return st, nil
}

// openStream makes one streaming attempt and reads up to the first answer
// token.
func (m *Model) openStream(caller, reqCtx context.Context, creq goopenai.ChatCompletionRequest, prompt llm.ChatRequest) (*stream, error) {
	ctx, cancel := context.WithCancel(reqCtx)
	ctx, att := withStreamAttempt(ctx)
	var firstTokenExpired atomic.Bool
	timer := time.AfterFunc(m.cfg.FirstTokenTimeout, func() {
		firstTokenExpired.Store(true)
		cancel()
	})
	fail := func(err error, resp *goopenai.ChatCompletionStream) error {
		timer.Stop()
		cancel()
		if resp != nil {
			_ = resp.Close()
		}
		return classify(err, scope{caller: caller, request: reqCtx, attempt: att, firstToken: firstTokenExpired.Load()})
	}

	resp, err := m.client.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return nil, fail(err, nil)
	}
	body := att.streamBody()
	if body == nil {
		// Only when the HTTP client bypassed doer, which New never does.
		return nil, fail(errors.New("openai: the stream's body was not recorded"), resp)
	}
	s := &stream{
		resp: resp, events: newEventReader(body), caller: caller, request: reqCtx, attempt: att, cancelAttempt: cancel,
		model: creq.Model, prompt: prompt, idle: m.cfg.IdleTimeout,
	}
	delta, err := s.next()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fail(err, resp)
	}
	if !timer.Stop() && firstTokenExpired.Load() {
		return nil, fail(context.Canceled, resp)
	}
	if errors.Is(err, io.EOF) {
		if !s.finished && !s.events.done {
			// Dropped before any answer text: safe to retry.
			return nil, fail(io.ErrUnexpectedEOF, resp)
		}
		s.atEOF = true
	}
	s.pending = delta
	return s, nil
}
