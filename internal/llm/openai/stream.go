package openai

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragchat/ragchat/internal/llm"
)

// stream adapts a go-openai chat stream to llm.Stream. Recv is meant for
// one goroutine; Close may be called from any.
type stream struct {
	// resp is go-openai's stream, kept to close the body; the events are
	// read from the same body by events.
	resp          *goopenai.ChatCompletionStream
	events        *eventReader
	caller        context.Context
	request       context.Context
	attempt       *attempt
	cancelAttempt context.CancelFunc
	cancelRequest context.CancelFunc
	prompt        llm.ChatRequest
	// idle bounds the wait for each answer token after the first; idled
	// records that it expired.
	idle  time.Duration
	idled atomic.Bool

	// Owned by the Recv goroutine.
	pending  string
	chunk    streamChunk
	atEOF    bool
	finished bool
	err      error
	text     strings.Builder
	apiUsage *goopenai.Usage
	// answered counts the answer's tokens as they arrive, delta by delta,
	// when the request has a MaxTokens; capped records that the answer
	// reached it and was cut there (capAnswer).
	answered int
	capped   bool

	mu    sync.Mutex
	model string
	usage llm.Usage

	closed    atomic.Bool
	closeOnce sync.Once
}

var errStreamClosed = &llm.Error{Kind: llm.KindCanceled, Message: "stream closed"}

// Recv returns the next answer delta, io.EOF at the end, or an *llm.Error.
func (s *stream) Recv() (string, error) {
	if s.closed.Load() {
		return "", errStreamClosed
	}
	if s.err != nil {
		return "", s.err
	}
	if s.pending != "" {
		d := s.pending
		s.pending = ""
		return d, nil
	}
	if s.capped {
		// The answer reached the request's MaxTokens: the rest is never
		// read (release closes the connection).
		s.atEOF, s.finished = true, true
	}
	if !s.atEOF {
		d, err := s.nextWithin()
		switch {
		case err == nil:
			return d, nil
		case !errors.Is(err, io.EOF):
			return "", s.fail(classify(err, scope{caller: s.caller, request: s.request, closed: s.closed.Load(), idle: s.idled.Load()}))
		}
		s.atEOF = true
	}
	if !s.finished && !s.events.done {
		return "", s.fail(&llm.Error{Kind: llm.KindUnavailable, Message: "stream ended before the model finished", Retryable: true, Err: io.ErrUnexpectedEOF})
	}
	s.finish()
	s.err = io.EOF
	return "", io.EOF
}

// nextWithin is next bounded by the idle timeout: when no answer token
// (nor the end) arrives within it, the exchange is aborted and the error
// is classified as an idle timeout.
func (s *stream) nextWithin() (string, error) {
	if s.idle <= 0 {
		return s.next()
	}
	timer := time.AfterFunc(s.idle, func() {
		s.idled.Store(true)
		s.cancelAttempt()
	})
	d, err := s.next()
	timer.Stop()
	return d, err
}

// next reads chunks until one carries answer text; it records usage, the
// model name and finish reasons on the way.
func (s *stream) next() (string, error) {
	for {
		raw, err := s.events.next()
		if err != nil {
			return "", err
		}
		chunk := &s.chunk
		if err := decodeChunk(raw, chunk); err != nil {
			return "", err
		}
		if chunk.Usage != nil {
			s.apiUsage = chunk.Usage
		}
		if chunk.Model != "" {
			s.mu.Lock()
			s.model = chunk.Model
			s.mu.Unlock()
		}
		var d string
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			if c.FinishReason != "" {
				s.finished = true
			}
			d += c.Delta.Content
		}
		if d != "" {
			d = s.capAnswer(d)
			s.text.WriteString(d)
			return d, nil
		}
	}
}

// capAnswer keeps the answer within the request's MaxTokens even when the
// provider ignores max_tokens (a misbehaving OpenAI-compatible server):
// the delta that would pass the bound is cut to the longest prefix, on a
// rune boundary, that keeps the answer within it, and the stream then
// ends (Recv's io.EOF) reporting at most MaxTokens answer tokens. A HARD
// token quota reserved exactly that bound for the answer (docs/ENGINE.md,
// "Quotas"), so the quota holds whatever the provider does. Deltas are
// counted one by one, which counts a token split between two deltas
// twice; only when that sum passes the bound is the whole answer counted,
// so an answer that fits is never cut.
func (s *stream) capAnswer(d string) string {
	limit := s.prompt.MaxTokens
	if limit <= 0 {
		return d
	}
	if n := llm.EstimateTokens(d); s.answered+n <= limit {
		s.answered += n
		return d
	}
	prev := s.text.String()
	if exact := llm.EstimateTokens(prev + d); exact <= limit {
		s.answered = exact
		return d
	}
	d = withinTokens(prev, d, limit)
	s.answered = llm.EstimateTokens(prev + d)
	s.capped = true
	return d
}

// finish computes the usage and releases the connection.
func (s *stream) finish() {
	var u llm.Usage
	if s.capped {
		// Cut at MaxTokens: what the provider may report later was never
		// read, and the answer kept is all that counts.
		u = llm.EstimateUsageFor(s.prompt, s.text.String())
		u.CompletionTokens = min(u.CompletionTokens, s.prompt.MaxTokens)
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	} else if s.apiUsage != nil && s.apiUsage.TotalTokens > 0 {
		u = fromUsage(*s.apiUsage)
	} else {
		// Tokenising is costly: only when the provider reported nothing
		// (stream_options.include_usage is asked for), and then only the
		// completion when the caller counted the prompt.
		u = llm.EstimateUsageFor(s.prompt, s.text.String())
	}
	s.mu.Lock()
	s.usage = u
	s.mu.Unlock()
	s.release()
}

func (s *stream) fail(e *llm.Error) error {
	s.err = e
	s.release()
	return e
}

// release aborts the HTTP request if it is still open and closes the body.
func (s *stream) release() {
	s.cancelAttempt()
	if s.cancelRequest != nil {
		s.cancelRequest()
	}
	_ = s.resp.Close()
}

// Usage is valid after io.EOF.
func (s *stream) Usage() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Model is the model the provider reported (or the one requested).
func (s *stream) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Close aborts the request: the context is cancelled, which makes the HTTP
// transport close the connection, and the body is closed. A concurrent
// Recv returns a KindCanceled error.
func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.cancelAttempt()
		if s.cancelRequest != nil {
			s.cancelRequest()
		}
		_ = s.resp.Close()
	})
	return nil
}
