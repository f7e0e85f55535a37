package server

import "github.com/ragchat/ragchat/internal/chat"

// The per-user ask rate limit is the conversation engine's (it charges its
// askrate.Limiter after the idempotency lookup, so that a replayed key
// costs nothing); the server only counts its refusals.

var _ chat.RateLimitObserver = (*Metrics)(nil)

// AskRateLimited counts an ask or retry refused by the rate limit
// (ragchat_ask_rate_limited_total).
func (m *Metrics) AskRateLimited() { m.rateLimited.Inc() }
