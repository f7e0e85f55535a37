package config

import (
	"fmt"
	"runtime"
	"time"

	"github.com/ragchat/ragchat/internal/admission"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/llm/openai"
)

// Engine tunes how answers run and end (docs/ENGINE.md, "Leases, the
// reaper and restarts" and "Failure and recovery").
type Engine struct {
	// LeaseDuration is an attempt's lease (RAGCHAT_ATTEMPT_LEASE) and
	// CheckpointInterval how often a running answer saves its partial text
	// and renews the lease (RAGCHAT_CHECKPOINT_INTERVAL).
	LeaseDuration      time.Duration
	CheckpointInterval time.Duration
	// ReaperInterval is how often expired leases are reaped
	// (RAGCHAT_REAPER_INTERVAL).
	ReaperInterval time.Duration
	// AnswerTimeout bounds one whole answer (RAGCHAT_ANSWER_TIMEOUT).
	AnswerTimeout time.Duration
	// CompletionRetryTimeout bounds how long a finished answer waits for an
	// unavailable database (RAGCHAT_COMPLETION_RETRY_TIMEOUT).
	CompletionRetryTimeout time.Duration
	// ModelWindows override the model registry's context windows
	// (RAGCHAT_MODEL_WINDOWS, modelwindows.go).
	ModelWindows map[string]int
	// MaxRunningAnswers bounds the answers this instance runs at once
	// (RAGCHAT_MAX_RUNNING_ANSWERS, default 64 per GOMAXPROCS; 0: no
	// bound); AnswerQueue is how many asks may wait for one
	// (RAGCHAT_ANSWER_QUEUE, default MaxRunningAnswers) and
	// AnswerQueueWait how long each may wait (RAGCHAT_ANSWER_QUEUE_WAIT,
	// default 5 s) before it is refused with UNAVAILABLE.
	MaxRunningAnswers int
	AnswerQueue       int
	AnswerQueueWait   time.Duration
}

// DefaultRunningAnswersPerCPU is the default bound of running answers per
// GOMAXPROCS: answers mostly wait on the model's stream, so the bound is
// well above the cores, and is there to shed load, not to schedule it.
const DefaultRunningAnswersPerCPU = 64

// ModelLimits bounds calls to an OpenAI-compatible model.
type ModelLimits struct {
	// Timeout bounds a whole request, streaming included
	// (RAGCHAT_MODEL_TIMEOUT); FirstTokenTimeout the wait for the first
	// answer token (RAGCHAT_MODEL_FIRST_TOKEN_TIMEOUT); IdleTimeout the
	// silence between two tokens (RAGCHAT_MODEL_IDLE_TIMEOUT).
	Timeout           time.Duration
	FirstTokenTimeout time.Duration
	IdleTimeout       time.Duration
	// MaxRetries is the number of retries of a failed request before its
	// first token (RAGCHAT_MODEL_MAX_RETRIES; 0: none).
	MaxRetries int
}

// loadEngine reads the engine's and the model client's timings and checks
// how they relate.
func loadEngine(e *env) (Engine, ModelLimits) {
	eng := Engine{
		LeaseDuration:          e.positive("RAGCHAT_ATTEMPT_LEASE", chat.DefaultLeaseDuration),
		CheckpointInterval:     e.positive("RAGCHAT_CHECKPOINT_INTERVAL", chat.DefaultCheckpointInterval),
		ReaperInterval:         e.positive("RAGCHAT_REAPER_INTERVAL", chat.DefaultReaperInterval),
		AnswerTimeout:          e.positive("RAGCHAT_ANSWER_TIMEOUT", chat.DefaultAnswerTimeout),
		CompletionRetryTimeout: e.positive("RAGCHAT_COMPLETION_RETRY_TIMEOUT", chat.DefaultCompletionRetryTimeout),
		ModelWindows:           modelWindows(e),
	}
	eng.MaxRunningAnswers = e.integer("RAGCHAT_MAX_RUNNING_ANSWERS", DefaultRunningAnswersPerCPU*runtime.GOMAXPROCS(0), 0)
	eng.AnswerQueue = e.integer("RAGCHAT_ANSWER_QUEUE", eng.MaxRunningAnswers, 0)
	eng.AnswerQueueWait = e.positive("RAGCHAT_ANSWER_QUEUE_WAIT", admission.DefaultMaxWait)
	if err := eng.Chat("").Validate(); err != nil {
		e.errs = append(e.errs, fmt.Errorf("RAGCHAT_ATTEMPT_LEASE, RAGCHAT_CHECKPOINT_INTERVAL, RAGCHAT_REAPER_INTERVAL: %w", err))
	}
	m := ModelLimits{
		Timeout:           e.positive("RAGCHAT_MODEL_TIMEOUT", openai.DefaultTimeout),
		FirstTokenTimeout: e.positive("RAGCHAT_MODEL_FIRST_TOKEN_TIMEOUT", openai.DefaultFirstTokenTimeout),
		IdleTimeout:       e.positive("RAGCHAT_MODEL_IDLE_TIMEOUT", openai.DefaultIdleTimeout),
		MaxRetries:        e.integer("RAGCHAT_MODEL_MAX_RETRIES", openai.DefaultMaxRetries, 0),
	}
	if m.FirstTokenTimeout > m.Timeout {
		e.errs = append(e.errs, fmt.Errorf("RAGCHAT_MODEL_FIRST_TOKEN_TIMEOUT (%s) must not exceed RAGCHAT_MODEL_TIMEOUT (%s)", m.FirstTokenTimeout, m.Timeout))
	}
	if m.IdleTimeout > m.Timeout {
		e.errs = append(e.errs, fmt.Errorf("RAGCHAT_MODEL_IDLE_TIMEOUT (%s) must not exceed RAGCHAT_MODEL_TIMEOUT (%s)", m.IdleTimeout, m.Timeout))
	}
	return eng, m
}

// Chat returns the engine configuration for instance id.
func (g Engine) Chat(instanceID string) chat.Config {
	return chat.Config{
		InstanceID:             instanceID,
		LeaseDuration:          g.LeaseDuration,
		CheckpointInterval:     g.CheckpointInterval,
		ReaperInterval:         g.ReaperInterval,
		AnswerTimeout:          g.AnswerTimeout,
		CompletionRetryTimeout: g.CompletionRetryTimeout,
		ModelWindows:           g.ModelWindows,
		Admission:              admission.Config{Limit: g.MaxRunningAnswers, Queue: g.AnswerQueue, MaxWait: g.AnswerQueueWait},
	}
}

// OpenAI applies the limits to an adapter configuration.
func (m ModelLimits) OpenAI(c openai.Config) openai.Config {
	c.Timeout, c.FirstTokenTimeout, c.IdleTimeout = m.Timeout, m.FirstTokenTimeout, m.IdleTimeout
	c.MaxRetries = m.MaxRetries
	if m.MaxRetries == 0 {
		c.MaxRetries = -1 // the adapter reads 0 as its default
	}
	return c
}
