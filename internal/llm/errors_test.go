package llm_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
)

func TestFailureCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want domain.FailureCode
	}{
		{"nil", nil, ""},
		{"rate limited", &llm.Error{Kind: llm.KindRateLimited, Status: 429}, domain.FailureRateLimited},
		{"timeout", &llm.Error{Kind: llm.KindTimeout}, domain.FailureModelTimeout},
		{"canceled", &llm.Error{Kind: llm.KindCanceled}, domain.FailureCancelled},
		{"unavailable", &llm.Error{Kind: llm.KindUnavailable, Status: 503}, domain.FailureModelError},
		{"bad request", &llm.Error{Kind: llm.KindBadRequest, Status: 400}, domain.FailureModelError},
		{"upstream", &llm.Error{Kind: llm.KindUpstream}, domain.FailureModelError},
		{"wrapped", fmt.Errorf("answer: %w", &llm.Error{Kind: llm.KindRateLimited}), domain.FailureRateLimited},
		{"context canceled", context.Canceled, domain.FailureCancelled},
		{"context deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), domain.FailureModelTimeout},
		{"other", errors.New("boom"), domain.FailureModelError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := llm.FailureCode(tc.err); got != tc.want {
				t.Errorf("FailureCode = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestContextError(t *testing.T) {
	tests := []struct {
		err       error
		kind      llm.ErrorKind
		retryable bool
	}{
		{context.Canceled, llm.KindCanceled, false},
		{context.DeadlineExceeded, llm.KindTimeout, true},
	}
	for _, tc := range tests {
		e := llm.ContextError(tc.err)
		if e.Kind != tc.kind || e.Retryable != tc.retryable || !errors.Is(e, tc.err) {
			t.Errorf("ContextError(%v) = %+v", tc.err, e)
		}
	}
	if llm.ContextError(nil) != nil {
		t.Error("ContextError(nil) != nil")
	}
}

func TestDomainError(t *testing.T) {
	if c := llm.DomainError(llm.Errorf(llm.KindRateLimited, "slow down")).Code; c != domain.CodeRateLimited {
		t.Errorf("rate limit code = %s", c)
	}
	if c := llm.DomainError(llm.Errorf(llm.KindUnavailable, "down")).Code; c != domain.CodeModelUnavailable {
		t.Errorf("unavailable code = %s", c)
	}
	if llm.DomainError(nil) != nil {
		t.Error("DomainError(nil) != nil")
	}
}

func TestErrorMessage(t *testing.T) {
	e := &llm.Error{Kind: llm.KindUnavailable, Status: 503, Message: "upstream down", Err: errors.New("eof")}
	if got, want := e.Error(), "llm unavailable (HTTP 503): upstream down: eof"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !llm.Errorf(llm.KindRateLimited, "x").Retryable || llm.Errorf(llm.KindBadRequest, "x").Retryable {
		t.Error("Errorf retryable flags are wrong")
	}
}
