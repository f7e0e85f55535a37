package offline

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/ragchat/ragchat/internal/llm"
)

// ChatStream answers extractively from the evidence in the prompt and
// streams the answer token by token (see pieces), TokenDelay apart. The
// wait between tokens respects ctx and Close: cancelling stops the stream
// promptly with a KindCanceled (or KindTimeout) error. MaxTokens, when set,
// caps the number of streamed tokens.
func (m *Model) ChatStream(ctx context.Context, req llm.ChatRequest) (llm.Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, llm.ContextError(err)
	}
	p := pieces(composeAnswer(req.Messages, m.maxSentences))
	if req.MaxTokens > 0 && len(p) > req.MaxTokens {
		p = p[:req.MaxTokens]
	}
	return &stream{
		ctx:    ctx,
		pieces: p,
		delay:  m.delay,
		prompt: req,
		closed: make(chan struct{}),
	}, nil
}

// stream is a paced, pull-based answer stream. It starts no goroutine.
type stream struct {
	ctx    context.Context
	pieces []string
	delay  time.Duration
	// prompt is counted (with tiktoken) only at the end of the stream, so
	// that counting never delays the first token, and only when the
	// caller did not count it already (PromptTokens).
	prompt    llm.ChatRequest
	closed    chan struct{}
	closeOnce sync.Once

	mu    sync.Mutex
	next  int
	usage llm.Usage
}

var errClosed = &llm.Error{Kind: llm.KindCanceled, Message: "stream closed"}

// Recv waits TokenDelay and returns the next token, io.EOF after the last.
func (s *stream) Recv() (string, error) {
	select {
	case <-s.closed:
		return "", errClosed
	default:
	}
	if err := s.ctx.Err(); err != nil {
		return "", llm.ContextError(err)
	}
	s.mu.Lock()
	i := s.next
	if i >= len(s.pieces) {
		n := len(s.pieces)
		if !s.usage.Estimated {
			p := s.prompt.PromptTokens
			if p <= 0 {
				p = llm.EstimateMessageTokens(s.prompt.Messages)
			}
			s.usage = llm.Usage{PromptTokens: p, CompletionTokens: n, TotalTokens: p + n, Estimated: true}
		}
		s.mu.Unlock()
		return "", io.EOF
	}
	s.mu.Unlock()
	if s.delay > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return "", llm.ContextError(s.ctx.Err())
		case <-s.closed:
			t.Stop()
			return "", errClosed
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = i + 1
	return s.pieces[i], nil
}

// Usage is valid after io.EOF: the prompt's estimated tokens and one
// completion token per streamed piece, marked Estimated.
func (s *stream) Usage() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Model returns the offline chat model name.
func (s *stream) Model() string { return ChatModel }

// Close ends the stream; a Recv waiting for its next token returns at once.
func (s *stream) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}
