package chat

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/internal/periodic"
)

// progress is a streaming attempt's partial answer, shared between the
// streaming loop and the checkpointer.
type progress struct {
	mu         sync.Mutex
	text       strings.Builder
	seq        int
	firstToken time.Time
	saved      int

	// The rewrite (setRewrite): the standalone question, whether it
	// depends on history, and whether a checkpoint has saved them.
	standalone   *string
	requires     bool
	rewriteSaved bool
}

// setRewrite records the attempt's standalone question, which the next
// checkpoint saves (so that a subscriber catching up from the row gets
// STARTED) and the outcome's write saves in any case.
func (p *progress) setRewrite(standalone string, requires bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.standalone, p.requires = &standalone, requires
}

// rewrite returns the recorded rewrite, if any.
func (p *progress) rewrite() (string, bool, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.standalone == nil {
		return "", false, false
	}
	return *p.standalone, p.requires, true
}

// add appends a delta and returns the new sequence offset.
func (p *progress) add(delta string, now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.firstToken.IsZero() {
		p.firstToken = now
	}
	p.text.WriteString(delta)
	p.seq += utf8.RuneCountInString(delta)
	return p.seq
}

// snapshot returns the text so far, its offset and the first-token time.
func (p *progress) snapshot() (string, int, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.text.String(), p.seq, p.firstToken
}

// checkpoint saves the partial answer and renews the lease, at most once
// per call. It reports false when the attempt is no longer this
// instance's PENDING attempt (cancelled elsewhere, or reaped after a lost
// lease): the run must stop.
func (e *Engine) checkpoint(ctx context.Context, id uuid.UUID, p *progress) (bool, error) {
	text, seq, first := p.snapshot()
	p.mu.Lock()
	var standalone *string
	if !p.rewriteSaved {
		standalone = p.standalone
	}
	requires := p.requires
	p.mu.Unlock()
	now := e.now()
	upd := e.client.Attempt.Update().
		Where(attempt.ID(id), attempt.StatusEQ(attempt.StatusPENDING), attempt.LeaseOwner(e.cfg.InstanceID)).
		SetLeaseExpiresAt(now.Add(e.cfg.LeaseDuration))
	if seq != p.saved {
		upd.SetAnswer(text).SetCheckpointSeq(seq).SetCheckpointAt(now)
	}
	if !first.IsZero() {
		upd.SetFirstTokenAt(first)
	}
	if standalone != nil {
		upd.SetStandaloneQuestion(*standalone).SetRequiresHistory(requires)
	}
	n, err := upd.Save(ctx)
	if err != nil {
		return true, err
	}
	p.mu.Lock()
	p.saved = seq
	if standalone != nil {
		p.rewriteSaved = true
	}
	p.mu.Unlock()
	return n == 1, nil
}

// keepCheckpointing checkpoints every CheckpointInterval until ctx ends.
// When the lease is lost it cancels the run.
func (e *Engine) keepCheckpointing(ctx context.Context, id uuid.UUID, p *progress, cancel context.CancelCauseFunc) {
	periodic.Every(ctx.Done(), e.cfg.CheckpointInterval, func() bool {
		ok, err := e.checkpoint(ctx, id, p)
		if err != nil {
			if ctx.Err() == nil {
				e.log.WarnContext(ctx, "attempt checkpoint failed", "attempt", id, "err", err)
			}
			return true
		}
		if !ok {
			cancel(errLeaseLost)
		}
		return ok
	})
}
