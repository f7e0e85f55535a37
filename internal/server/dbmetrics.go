package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ragchat/ragchat/internal/chat/history"
)

var _ history.ContextObserver = (*Metrics)(nil)

// dbMetrics are the metrics of the database work behind requests and
// answers (docs/BENCHMARKS.md reads them): statements per GraphQL
// operation and the time of each context assembly. The total statement
// counter is registered by WatchStatements.
type dbMetrics struct {
	operationStatements *prometheus.HistogramVec
	contextSeconds      prometheus.Histogram
}

// newDBMetrics creates the database metrics and registers them in reg.
func newDBMetrics(reg *prometheus.Registry) dbMetrics {
	d := dbMetrics{
		operationStatements: histogramVec("ragchat_db_statements_per_operation",
			"SQL statements a GraphQL operation sent up to its first response, by type (an answer's background run is not counted in the ask).",
			prometheus.ExponentialBuckets(1, 2, 9), "type"),
		contextSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "ragchat_context_assembly_seconds",
			Help:    "Time to assemble an answer's context: history window, rewrite, authorised retrieval and the budgeted prompt.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
	}
	reg.MustRegister(d.operationStatements, d.contextSeconds)
	return d
}

// WatchStatements exports count, the statements the database client has
// sent (store.DB.Statements), as ragchat_db_statements_total. Call it
// once, at start.
func (m *Metrics) WatchStatements(count func() uint64) {
	m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "ragchat_db_statements_total",
		Help: "SQL statements sent by the database client (each BEGIN, COMMIT and ROLLBACK included).",
	}, func() float64 { return float64(count()) }))
}

// ContextAssembled records one context assembly (history.ContextObserver).
func (m *Metrics) ContextAssembled(d time.Duration) { m.contextSeconds.Observe(d.Seconds()) }
