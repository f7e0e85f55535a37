package chat

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
)

// Bounds of the recent outcomes an engine keeps (recentOutcomes).
const (
	outcomeTTL  = time.Minute
	maxOutcomes = 4096
)

// recentOutcomes keeps the rows of the attempts this instance has just
// completed, as it wrote or read them before publishing COMPLETED
// (publishTerminal), for a short while. This instance's subscribers take
// the finished row from here instead of reading it again when COMPLETED
// arrives (docs/ENGINE.md, "Statements per ask"): each of
// them was authorised for the attempt by its privacy-filtered read on
// subscribe, and the row is the same. A subscriber on another instance,
// or one whose event comes after the row has been dropped, reads the row
// from the database as before.
//
// Beside the row it keeps the run's evidence grant, if any: who retrieved
// the attempt's evidence under which access stamp (sources.go). A
// subscriber that handles the SOURCES event after the run has ended finds
// it here, so whether its sources need a query depends on the stamp and
// the viewer alone, not on how soon it was scheduled.
type recentOutcomes struct {
	mu    sync.Mutex
	rows  map[uuid.UUID]outcome
	order []outcomeEntry // oldest first
}

// outcome is one kept attempt: its finished row and its run's evidence
// grant (nil when the run retrieved nothing or ran elsewhere).
type outcome struct {
	row      *ent.Attempt
	evidence *evidenceGrant
}

type outcomeEntry struct {
	id uuid.UUID
	at time.Time
}

// put keeps a finished attempt's row and its run's evidence grant g
// (which may be nil).
func (o *recentOutcomes) put(a *ent.Attempt, g *evidenceGrant, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rows == nil {
		o.rows = map[uuid.UUID]outcome{}
	}
	o.dropOld(now)
	for len(o.order) >= maxOutcomes {
		o.drop()
	}
	if _, ok := o.rows[a.ID]; !ok {
		o.order = append(o.order, outcomeEntry{id: a.ID, at: now})
	}
	o.rows[a.ID] = outcome{row: a, evidence: g}
}

// get returns a copy of the kept row of attempt id, if any.
func (o *recentOutcomes) get(id uuid.UUID, now time.Time) (*ent.Attempt, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dropOld(now)
	out, ok := o.rows[id]
	if !ok {
		return nil, false
	}
	c := *out.row
	return &c, true
}

// evidence returns the evidence grant kept with attempt id, if any.
func (o *recentOutcomes) evidence(id uuid.UUID, now time.Time) *evidenceGrant {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dropOld(now)
	return o.rows[id].evidence
}

// expire forgets the rows kept longer than outcomeTTL. RunBackground calls
// it with each reaper pass, so that an idle engine does not keep them.
func (o *recentOutcomes) expire(now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dropOld(now)
}

// dropOld is expire for a caller that holds o.mu.
func (o *recentOutcomes) dropOld(now time.Time) {
	for len(o.order) > 0 && now.Sub(o.order[0].at) > outcomeTTL {
		o.drop()
	}
}

// drop forgets the oldest row; the caller holds o.mu.
func (o *recentOutcomes) drop() {
	delete(o.rows, o.order[0].id)
	o.order[0] = outcomeEntry{}
	o.order = o.order[1:]
	if len(o.order) == 0 {
		o.order = nil // let the backing array go
	}
}
