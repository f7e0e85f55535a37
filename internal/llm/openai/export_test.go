package openai

import (
	"context"
	"time"

	"github.com/ragchat/ragchat/internal/llm"
)

// SetSleep replaces the wait between retries of m.
func SetSleep(m llm.Model, f func(context.Context, time.Duration) error) { m.(*Model).sleep = f }

// ParseRetryAfter exposes parseRetryAfter.
var ParseRetryAfter = parseRetryAfter
