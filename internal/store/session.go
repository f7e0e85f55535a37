package store

import (
	"strconv"

	"github.com/lib/pq"
)

// Session settings every pooled PostgreSQL connection starts with. They are
// run-time parameters of the connection's startup packet, so they cost no
// statement: the retriever's nearest-neighbour query needs no transaction
// of its own to set them (docs/ENGINE.md, "Statements per ask").
const (
	// HNSWEfSearch is hnsw.ef_search on every connection: pgvector's own
	// default, and the retriever's floor (knowledge.DefaultMinEfSearch).
	HNSWEfSearch = 40
	// HNSWIterativeScan is hnsw.iterative_scan on every connection:
	// pgvector 0.8+ keeps scanning the HNSW index while the tenant,
	// knowledge base and ACL filters reject its candidates. An older
	// pgvector drops the unknown setting when it loads.
	HNSWIterativeScan = "relaxed_order"
)

// Run-time parameter names of the session settings.
const (
	paramEfSearch      = "hnsw.ef_search"
	paramIterativeScan = "hnsw.iterative_scan"
)

// Session describes the settings every connection of a pool starts with.
// The zero value means "the server's defaults, nothing known": a reader
// that needs a setting then sets it itself (SET LOCAL in a transaction).
type Session struct {
	// EfSearch is hnsw.ef_search (0: unknown).
	EfSearch int
	// IterativeScan is hnsw.iterative_scan ("": unknown).
	IterativeScan string
}

// withSession adds the session settings to a lib/pq configuration, unless
// the DSN sets them already (the operator's choice wins), and returns what
// every connection will have.
func withSession(cfg *pq.Config) Session {
	if cfg.Runtime == nil {
		cfg.Runtime = map[string]string{}
	}
	if _, set := cfg.Runtime[paramEfSearch]; !set {
		cfg.Runtime[paramEfSearch] = strconv.Itoa(HNSWEfSearch)
	}
	if _, set := cfg.Runtime[paramIterativeScan]; !set {
		cfg.Runtime[paramIterativeScan] = HNSWIterativeScan
	}
	var s Session
	if n, err := strconv.Atoi(cfg.Runtime[paramEfSearch]); err == nil {
		s.EfSearch = n
	}
	s.IterativeScan = cfg.Runtime[paramIterativeScan]
	return s
}
