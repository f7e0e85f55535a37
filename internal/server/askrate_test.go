package server_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// TestReplayedKeyIsNeverRateLimited: the ask rate is charged after the
// idempotency lookup, so resending a stored question (or retry) with its
// key, any number of times and even once the user is limited, answers
// deduplicated: true; new questions are still limited. With a burst of 3:
// one ask and one retry, then 4 resends of each (the 4th is the burst's
// N+1th), then one more ask, and the next new ask is RATE_LIMITED.
func TestReplayedKeyIsNeverRateLimited(t *testing.T) {
	const burst = 3
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) {
			s.AskBurst, s.AskRatePerMinute = burst, 0.001 // no refill during the test
		})
		c := h.Client(t, "retrying-user")
		conv := createConversation(t, c)
		askQ := `mutation($c: ID!, $k: String!, $q: String!) { ask(input: {conversationId: $c, clientMessageId: $k, question: $q}) { deduplicated attempt { id } } }`
		retryQ := `mutation($a: ID!, $k: String!) { retryAttempt(input: {attemptId: $a, clientRequestId: $k}) { deduplicated attempt { id } } }`
		type payload struct {
			Deduplicated bool
			Attempt      struct{ ID string }
		}
		send := func(q string, vars map[string]any) (payload, string) {
			t.Helper()
			r, err := c.Do(ctxT(t), q, vars)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Errors) > 0 {
				return payload{}, r.Errors[0].Code()
			}
			var out struct{ Ask, RetryAttempt *payload }
			if err := r.Decode(&out); err != nil {
				t.Fatal(err)
			}
			if out.Ask != nil {
				return *out.Ask, ""
			}
			return *out.RetryAttempt, ""
		}
		askVars := map[string]any{"c": conv, "k": "q-1", "q": "上传文件最大是多少？"}
		first, code := send(askQ, askVars)
		if code != "" || first.Deduplicated {
			t.Fatalf("first ask: %s %+v", code, first)
		}
		waitDone(t, c, first.Attempt.ID)
		retryVars := map[string]any{"a": first.Attempt.ID, "k": "r-1"}
		retried, code := send(retryQ, retryVars)
		if code != "" || retried.Deduplicated {
			t.Fatalf("first retry: %s %+v", code, retried)
		}
		waitDone(t, c, retried.Attempt.ID)

		for i := 1; i <= burst+1; i++ {
			if p, code := send(askQ, askVars); code != "" || !p.Deduplicated || p.Attempt.ID != first.Attempt.ID {
				t.Fatalf("ask resend %d: %s %+v", i, code, p)
			}
			if p, code := send(retryQ, retryVars); code != "" || !p.Deduplicated || p.Attempt.ID != retried.Attempt.ID {
				t.Fatalf("retry resend %d: %s %+v", i, code, p)
			}
		}

		// The burst's last ask, then the limit.
		third, code := send(askQ, map[string]any{"c": conv, "k": "q-2", "q": "退款多久到账？"})
		if code != "" || third.Deduplicated {
			t.Fatalf("third charged request: %s %+v", code, third)
		}
		waitDone(t, c, third.Attempt.ID)
		r, err := c.Do(ctxT(t), askQ, map[string]any{"c": conv, "k": "q-3", "q": "什么是 RAG？"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Errors) != 1 || r.Errors[0].Code() != "RATE_LIMITED" || r.Errors[0].Extensions["retryAfterSeconds"] == nil ||
			r.Errors[0].Extensions["limit"] != "askRate" {
			t.Fatalf("a new ask past the burst: %s %+v", r.Data, r.Errors)
		}
		if _, code := send(retryQ, map[string]any{"a": third.Attempt.ID, "k": "r-2"}); code != "RATE_LIMITED" {
			t.Fatalf("a new retry past the burst: %q", code)
		}
		// Limited, the user's replays still answer.
		for i, vars := range []map[string]any{askVars, {"c": conv, "k": "q-2", "q": "退款多久到账？"}} {
			if p, code := send(askQ, vars); code != "" || !p.Deduplicated {
				t.Fatalf("replay %d while limited: %s %+v", i, code, p)
			}
		}
		if p, code := send(retryQ, retryVars); code != "" || !p.Deduplicated {
			t.Fatalf("retry replay while limited: %s %+v", code, p)
		}
	})
}
