package authwatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Topic and event kind of viewer claims.
const (
	viewersTopic = "authwatch:viewers"
	kindViewer   = "VIEWER"
)

// DefaultViewers is how many users' newest claims a Viewers remembers.
const DefaultViewers = 4096

// ErrSuperseded is the cause of a held context's end: the user has since
// presented a token issued later with other roles or groups.
var ErrSuperseded = errors.New("authwatch: a newer token of this user carries other roles or groups")

// viewerPayload is the JSON body of a viewer event: a user's token issued
// at IssuedAt (Unix seconds) carries the claims whose digest is Claims.
type viewerPayload struct {
	Tenant   string `json:"tn"`
	User     string `json:"u"`
	IssuedAt int64  `json:"iat"`
	Claims   string `json:"h"`
}

// userKey names one user of one tenant.
type userKey struct{ tenant, user string }

// issued is a token's issue time (Unix seconds) and the digest of its
// roles and groups.
type issued struct {
	at     int64
	claims string
}

// supersedes reports whether a token issued as n supersedes one issued as
// o: it is newer and grants other roles or groups.
func (n issued) supersedes(o issued) bool { return n.at > o.at && n.claims != o.claims }

// hold is one held context: a stream opened with a token.
type hold struct {
	issued
	cancel context.CancelCauseFunc
}

// Viewers ends the streams of superseded tokens. Roles and groups come from
// the token alone, so a user demoted (or moved to other groups) at the
// identity provider keeps what the old token grants until it expires. A
// stream outlives the requests of a client that refreshes its token, so
// Viewers remembers, per user, the newest token's issue time and claims
// that any replica has verified (Seen), tells every replica when that
// changes, and ends the contexts held for streams (Hold) whose token is
// older and grants other roles or groups. Tokens issued in the same second
// supersede nothing.
//
// A replica that misses such an event (its bus was down) still learns of
// the newer token when that token next reaches it. It is safe for
// concurrent use.
type Viewers struct {
	b   broker.Broker
	log *slog.Logger

	mu     sync.Mutex
	newest *lru.Cache[userKey, issued]
	size   int
	holds  map[userKey]map[*hold]struct{}

	stop context.CancelFunc
	done chan struct{}
}

// StartViewers returns the Viewers of the replica whose broker is b,
// remembering the newest token of at most size users (DefaultViewers when
// size is not positive). It subscribes before returning and follows the
// other replicas' events in one goroutine until Close, or until the broker
// closes.
func StartViewers(b broker.Broker, log *slog.Logger, size int) *Viewers {
	if log == nil {
		log = slog.Default()
	}
	if size <= 0 {
		size = DefaultViewers
	}
	newest, _ := lru.New[userKey, issued](size)
	ctx, stop := context.WithCancel(context.Background())
	w := &Viewers{b: b, log: log, newest: newest, size: size, holds: make(map[userKey]map[*hold]struct{}), stop: stop, done: make(chan struct{})}
	sub, err := b.Subscribe(ctx, viewersTopic)
	if err != nil {
		log.Warn("viewer changes not followed yet; retrying", "err", err)
		sub = nil
	}
	go w.follow(ctx, sub)
	return w
}

// Close stops following and waits for the goroutine. Held contexts are
// left as they are. It is idempotent.
func (w *Viewers) Close() {
	w.stop()
	<-w.done
}

// Seen notes a verified viewer. When its token is the newest this replica
// knows of for the user, it ends the held streams it supersedes here, and
// when it is news (the first token of the user this replica sees, or one
// with other roles or groups) it tells every replica. Viewers without an
// issue time are ignored.
func (w *Viewers) Seen(ctx context.Context, v *viewer.Viewer) {
	k, t, ok := tokenOf(v)
	if !ok {
		return
	}
	w.mu.Lock()
	news := w.noteLocked(k, t)
	w.mu.Unlock()
	if !news {
		return
	}
	data, err := json.Marshal(viewerPayload{Tenant: k.tenant, User: k.user, IssuedAt: t.at, Claims: t.claims})
	if err != nil {
		return
	}
	ev := broker.Event{Topic: viewersTopic, Kind: kindViewer, Data: data}
	if _, err := w.b.Publish(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, broker.ErrClosed) {
		w.log.WarnContext(ctx, "viewer change not published; other replicas see it when the token reaches them", "err", err)
	}
}

// Hold returns a context for a stream opened as v: it ends with cause
// ErrSuperseded once a newer token of the same user with other roles or
// groups is seen on any replica (at once when one already was). Call
// release when the stream ends; it is also released when ctx ends.
func (w *Viewers) Hold(ctx context.Context, v *viewer.Viewer) (held context.Context, release func()) {
	k, t, ok := tokenOf(v)
	if !ok {
		return ctx, func() {}
	}
	held, cancel := context.WithCancelCause(ctx)
	h := &hold{issued: t, cancel: cancel}
	w.mu.Lock()
	if cur, known := w.newest.Peek(k); known && cur.supersedes(t) {
		w.mu.Unlock()
		cancel(ErrSuperseded)
		return held, func() {}
	}
	if w.holds[k] == nil {
		w.holds[k] = make(map[*hold]struct{})
	}
	w.holds[k][h] = struct{}{}
	w.mu.Unlock()
	var once sync.Once
	forget := func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if hs := w.holds[k]; hs != nil {
				delete(hs, h)
				if len(hs) == 0 {
					delete(w.holds, k)
				}
			}
		})
	}
	stop := context.AfterFunc(held, forget)
	return held, func() {
		stop()
		forget()
		cancel(context.Canceled)
	}
}

// noteLocked records t as user k's newest token when it is newer than the
// one known, ending the holds it supersedes. It reports whether t is news
// for the other replicas: no token of k was known, or t grants other roles
// or groups than the newest known.
func (w *Viewers) noteLocked(k userKey, t issued) bool {
	cur, known := w.newest.Get(k)
	if known && t.at <= cur.at {
		return false
	}
	w.newest.Add(k, t)
	for h := range w.holds[k] {
		if t.supersedes(h.issued) {
			delete(w.holds[k], h)
			h.cancel(ErrSuperseded)
		}
	}
	if len(w.holds[k]) == 0 {
		delete(w.holds, k)
	}
	return !known || t.claims != cur.claims
}

// follow applies the viewers topic's events until ctx ends or the broker
// closes, resubscribing when the subscription ends early (it lagged, or
// the broker reset it); the backlog a new subscription finds is applied
// too.
func (w *Viewers) follow(ctx context.Context, sub *broker.Subscription) {
	defer close(w.done)
	broker.Follow(ctx, w.b, viewersTopic, sub, w.apply)
}

// apply records one replica's viewer event.
func (w *Viewers) apply(ev broker.Event) {
	var p viewerPayload
	if ev.Kind != kindViewer || json.Unmarshal(ev.Data, &p) != nil || p.Tenant == "" || p.User == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noteLocked(userKey{p.Tenant, p.User}, issued{at: p.IssuedAt, claims: p.Claims})
}

// tokenOf returns the user and token v was built from; ok is false for a
// viewer without an issue time.
func tokenOf(v *viewer.Viewer) (userKey, issued, bool) {
	if v == nil || v.IssuedAt.IsZero() || v.TenantID == "" || v.UserID == "" {
		return userKey{}, issued{}, false
	}
	return userKey{v.TenantID, v.UserID}, issued{at: v.IssuedAt.Unix(), claims: claimsDigest(v)}, true
}

// claimsDigest is a digest of v's roles and groups as sets, so that the
// order a token lists them in does not matter.
func claimsDigest(v *viewer.Viewer) string {
	roles := make([]string, len(v.Roles))
	for i, r := range v.Roles {
		roles[i] = string(r)
	}
	slices.Sort(roles)
	groups := slices.Clone(v.Groups)
	slices.Sort(groups)
	b, _ := json.Marshal([2][]string{slices.Compact(roles), slices.Compact(groups)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
