package knowledge

// ForceIndexPlan makes r's PostgreSQL searches prefer an index scan that
// yields rows in distance order (the HNSW index) over any other plan, as
// the planner does on a large table, so that tests can reproduce HNSW
// under-filling on small data.
func ForceIndexPlan(r *Retriever) {
	r.plannerHints = []string{
		"SET LOCAL enable_seqscan = off",
		"SET LOCAL enable_bitmapscan = off",
		"SET LOCAL enable_sort = off",
	}
}

// DisableExactFallback turns off the exact-scan fallback of r.
func DisableExactFallback(r *Retriever) { r.noFallback = true }

// OnFallback calls f whenever r falls back to an exact scan.
func OnFallback(r *Retriever, f func()) { r.onFallback = f }

// SessionSettings returns the SET LOCAL statements r issues before a
// PostgreSQL search for k rows (pgvector 0.8+).
func SessionSettings(r *Retriever, k int) []string {
	return r.sessionSettings(pgCaps{iterativeScan: true}, k)
}
