package chat

import (
	"github.com/ragchat/ragchat/internal/cachesize"
	"github.com/ragchat/ragchat/internal/tokens"
)

// CacheSizes implements cachesize.Reporter: the engine's own caches (the
// recent outcomes, bounded by count and by outcomeTTL; the knowledge
// bases' embedding models), what it holds while answers run (one entry
// per running answer, and per conversation being summarised; bounded by
// the live work, not by a count), then the caches of its broker,
// retriever and model, and the process's token counters.
func (e *Engine) CacheSizes() []cachesize.Size {
	e.mu.Lock()
	runs := len(e.runs)
	e.mu.Unlock()
	out := []cachesize.Size{
		{Name: "chat_outcomes", Entries: e.outcomes.len(), Bound: maxOutcomes},
		{Name: "chat_kb_models", Entries: e.kbModels.Len(), Bound: maxKBModels},
		{Name: "chat_runs", Entries: runs},
		{Name: "chat_summary_locks", Entries: e.summarizer.Locks()},
	}
	out = append(out, cachesize.Of(e.broker, e.search, e.model)...)
	return append(out, tokens.CacheSizes()...)
}

// len is the number of rows kept.
func (o *recentOutcomes) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.rows)
}
