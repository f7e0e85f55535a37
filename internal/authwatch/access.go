package authwatch

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Topics and event kind of document-access changes.
const (
	// accessTopic carries one event per change of a tenant's document
	// access, from every replica.
	accessTopic = "authwatch:access"
	// canaryTopic is a topic nobody publishes to. A Distributed broker ends
	// the subscriptions of such a topic with ErrLagged whenever its bus may
	// have lost events (it resets every topic but those only ever published
	// to on this instance, and accessTopic may be one of those), so its end
	// is the signal that a change made on another replica may have been
	// missed.
	canaryTopic = "authwatch:canary"
	kindAccess  = "ACCESS"
)

// accessPayload is the JSON body of an access change.
type accessPayload struct {
	Tenant string `json:"tn"`
}

// Access hands out access stamps: a number per tenant that moves whenever
// what that tenant's viewers may read among its documents may have
// changed, on any replica. A cached authorisation verdict stays valid while
// the stamp read before it was computed is still the tenant's stamp.
//
// Stamp reads the changes the broker has delivered so far under the same
// lock that hands out stamps, and no goroutine takes them from the
// subscription in between, so a change delivered before another event (the
// broker delivers in order) is always seen by a Stamp call made while
// handling that event. It is safe for concurrent use.
type Access struct {
	b   broker.Broker
	log *slog.Logger

	mu      sync.Mutex
	sub     *broker.Subscription // accessTopic; nil while not subscribed
	canary  *broker.Subscription // canaryTopic
	clock   uint64               // the last stamp handed out
	all     uint64               // the stamp of the last change of every tenant
	tenants map[string]uint64    // each tenant's last change since all
	quiet   bool                 // a failed subscribe was logged
	closed  bool
}

// NewAccess returns the access stamps of the replica whose broker is b. It
// subscribes before returning, so that a change published by any replica
// right after is seen.
func NewAccess(b broker.Broker, log *slog.Logger) *Access {
	if log == nil {
		log = slog.Default()
	}
	a := &Access{b: b, log: log, tenants: make(map[string]uint64)}
	a.mu.Lock()
	a.pollLocked()
	a.mu.Unlock()
	return a
}

// Stamp returns tenant's current access stamp. It never blocks on the
// broker. Stamps only grow; while the broker is unusable every call
// returns a new stamp, so nothing is cached.
func (a *Access) Stamp(tenant string) uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pollLocked()
	return max(a.all, a.tenants[tenant])
}

// ViewerStamp is the access stamp of the tenant of the viewer in ctx (0's
// tenant "" without one): it moves when what the tenant's viewers may read
// among its documents may have changed, on any replica. Source views
// re-authorised after reading a stamp (internal/sourceauth) stay what a
// fresh query would show as long as the stamp has not moved, so a stream
// may reuse them instead of asking the database again on every event.
func (a *Access) ViewerStamp(ctx context.Context) uint64 {
	tenant := ""
	if v := viewer.FromContext(ctx); v != nil {
		tenant = v.TenantID
	}
	return a.Stamp(tenant)
}

// Changed records that access to tenant's documents changed (call it once
// the change is committed): this replica's stamp moves at once, and every
// other replica's when the broker delivers the event. A publish that fails
// is logged; the change is then seen elsewhere only after the next one, or
// when those replicas' subscriptions reset.
func (a *Access) Changed(ctx context.Context, tenant string) {
	a.mu.Lock()
	a.bumpLocked(tenant)
	closed := a.closed
	a.mu.Unlock()
	if closed {
		return
	}
	data, err := json.Marshal(accessPayload{Tenant: tenant})
	if err != nil {
		return
	}
	ev := broker.Event{Topic: accessTopic, Kind: kindAccess, Data: data}
	if _, err := a.b.Publish(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, broker.ErrClosed) {
		a.log.WarnContext(ctx, "document access change not published; other replicas see it with their next change", "tenant", tenant, "err", err)
	}
}

// Close ends the subscriptions. Stamps handed out later all differ, and
// changes are no longer published.
func (a *Access) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closeLocked()
	a.closed = true
}

// pollLocked applies the changes delivered so far, resubscribing (and
// moving every stamp) when a subscription ended: it lagged, the broker may
// have lost events, or the broker closed.
func (a *Access) pollLocked() {
	if a.closed {
		a.bumpAllLocked()
		return
	}
	for {
		if !live(a.sub) || !live(a.canary) {
			if !a.resubscribeLocked() {
				return
			}
		}
		select {
		case ev, ok := <-a.sub.C():
			if ok {
				a.applyLocked(ev)
			}
			// A closed channel: the loop resubscribes.
		default:
			return
		}
	}
}

// resubscribeLocked replaces the subscriptions and then moves every stamp:
// any change published while they were down may have been missed. It
// reports whether the subscriptions are live.
func (a *Access) resubscribeLocked() bool {
	a.closeLocked()
	defer a.bumpAllLocked()
	sub, err := a.b.Subscribe(context.Background(), accessTopic)
	if err != nil {
		a.refused(err)
		return false
	}
	canary, err := a.b.Subscribe(context.Background(), canaryTopic)
	if err != nil {
		sub.Close()
		a.refused(err)
		return false
	}
	a.sub, a.canary, a.quiet = sub, canary, false
	return true
}

// refused logs a failed subscribe once until one succeeds.
func (a *Access) refused(err error) {
	if a.quiet || errors.Is(err, broker.ErrClosed) {
		return
	}
	a.quiet = true
	a.log.Warn("document access changes not followed; citations on open streams are re-checked on every event until they are", "err", err)
}

func (a *Access) closeLocked() {
	for _, s := range []*broker.Subscription{a.sub, a.canary} {
		if s != nil {
			s.Close()
		}
	}
	a.sub, a.canary = nil, nil
}

// applyLocked moves the stamp of the tenant an event names.
func (a *Access) applyLocked(ev broker.Event) {
	var p accessPayload
	if ev.Kind != kindAccess || json.Unmarshal(ev.Data, &p) != nil {
		return
	}
	a.bumpLocked(p.Tenant)
}

func (a *Access) bumpLocked(tenant string) {
	a.clock++
	a.tenants[tenant] = a.clock
}

// bumpAllLocked moves every tenant's stamp.
func (a *Access) bumpAllLocked() {
	a.clock++
	a.all = a.clock
	clear(a.tenants)
}

// live reports whether s is a subscription that has not ended.
func live(s *broker.Subscription) bool {
	if s == nil {
		return false
	}
	select {
	case <-s.Done():
		return false
	default:
		return true
	}
}
