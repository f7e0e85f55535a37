package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

var _ chat.Observer = (*Metrics)(nil)

// Metrics are ragchat's Prometheus metrics. Labels are low-cardinality
// only: operation type, outcome, error or failure code, model, subscription
// kind. Never a conversation id, a user or any text.
type Metrics struct {
	registry *prometheus.Registry

	operations        *prometheus.CounterVec
	operationSeconds  *prometheus.HistogramVec
	errors            *prometheus.CounterVec
	asks              *prometheus.CounterVec
	attempts          *prometheus.CounterVec
	ttft              *prometheus.HistogramVec
	tokens            *prometheus.CounterVec
	subscriptions     *prometheus.GaugeVec
	wsConnections     prometheus.Gauge
	rateLimited       prometheus.Counter
	subscriptionsDeny *prometheus.CounterVec
	dbMetrics
}

// NewMetrics registers the metrics (and the Go and process collectors) in
// a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		operations: counterVec("ragchat_graphql_operations_total",
			"GraphQL operations by type (query, mutation, subscription) and outcome (ok, error).",
			"type", "outcome"),
		operationSeconds: histogramVec("ragchat_graphql_operation_seconds",
			"Time to the first response of a GraphQL operation, by type.",
			prometheus.ExponentialBuckets(0.001, 2.5, 12), "type"),
		errors: counterVec("ragchat_graphql_errors_total",
			"GraphQL errors returned, by extensions.code.",
			"code"),
		asks: counterVec("ragchat_asks_total",
			"Accepted asks and retries, by kind (ask, retry).",
			"kind"),
		attempts: counterVec("ragchat_attempts_total",
			"Finished answer attempts by outcome (completed, refused, failed), failure code and model.",
			"outcome", "failure_code", "model"),
		ttft: histogramVec("ragchat_attempt_ttft_seconds",
			"Time from an attempt's start to its first answer token, by model.",
			prometheus.ExponentialBuckets(0.01, 2, 12), "model"),
		tokens: counterVec("ragchat_tokens_total",
			"Model tokens by model and kind (prompt, completion).",
			"model", "kind"),
		subscriptions: gaugeVec("ragchat_active_subscriptions",
			"Active GraphQL subscriptions by kind (attempt, conversation).",
			"kind"),
		wsConnections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ragchat_websocket_connections",
			Help: "Open WebSocket connections.",
		}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ragchat_ask_rate_limited_total",
			Help: "Asks refused by the per-user rate limit.",
		}),
		subscriptionsDeny: counterVec("ragchat_subscriptions_refused_total",
			"Subscriptions refused, by reason (per_connection_limit, shutting_down).",
			"reason"),
	}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.operations, m.operationSeconds, m.errors, m.asks, m.attempts, m.ttft, m.tokens,
		m.subscriptions, m.wsConnections, m.rateLimited, m.subscriptionsDeny,
	)
	m.dbMetrics = newDBMetrics(m.registry)
	return m
}

// counterVec is a counter named name, explained by help, by labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// gaugeVec is a gauge named name, explained by help, by labels.
func gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
}

// histogramVec is a histogram named name, explained by help, with buckets,
// by labels.
func histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Registry is the registry the metrics live in, for extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// AskAccepted counts an accepted ask or retry (chat.Observer).
func (m *Metrics) AskAccepted(retry bool) {
	kind := "ask"
	if retry {
		kind = "retry"
	}
	m.asks.WithLabelValues(kind).Inc()
}

// AttemptFinished records a finished attempt (chat.Observer): its outcome
// (completed, refused, failed), failure code ("" unless failed), model,
// time to first token (0 when no token was produced) and token usage.
func (m *Metrics) AttemptFinished(outcome string, code domain.FailureCode, model string, ttft time.Duration, promptTokens, completionTokens int) {
	if model == "" {
		model = "none"
	}
	m.attempts.WithLabelValues(outcome, string(code), model).Inc()
	if ttft > 0 {
		m.ttft.WithLabelValues(model).Observe(ttft.Seconds())
	}
	if promptTokens > 0 {
		m.tokens.WithLabelValues(model, "prompt").Add(float64(promptTokens))
	}
	if completionTokens > 0 {
		m.tokens.WithLabelValues(model, "completion").Add(float64(completionTokens))
	}
}
