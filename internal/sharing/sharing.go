// Package sharing is share links (internal/sharing/README.md): an
// owner shares the path of one conversation from its root up to one
// message, frozen at creation, with the tenant, with named users, or (when
// the tenant allows it) with anyone who has the link's token. Service
// creates, updates, revokes and lists the owner's links under the Ent
// privacy rules (a link is its owner's alone) and audits each change
// (share.* events); Read serves a link to its reader from the token,
// reading as share scopes (viewer.ShareLookup, viewer.ShareReader) that
// Ent's privacy rules limit to that link's rows, and re-authorising every
// cited source for that reader.
//
// The token is 256 random bits, base64url; only its SHA-256 is stored.
// Every read goes to the database (nothing is cached), so a revoke is seen
// at once by every instance on the database.
package sharing

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/audit"
	"github.com/ragchat/ragchat/internal/defaults"
)

// The audit actions of the share link lifecycle.
const (
	ActionCreated = "share.created"
	ActionUpdated = "share.updated"
	ActionRevoked = "share.revoked"
)

// The bounds of a link's input.
const (
	// MaxUsers is how many users a USERS link may name.
	MaxUsers = 100
	// maxUserIDChars bounds one user id, like the viewer's subject.
	maxUserIDChars = 128
	// tokenBytes is the token's entropy: 256 bits.
	tokenBytes = 32
)

// linkKind names a share link in NOT_FOUND errors.
const linkKind = "share link"

// Default read rates: per link and per client address.
var (
	DefaultLinkRate    = askrate.Rate{PerMinute: 120, Burst: 60}
	DefaultAddressRate = askrate.Rate{PerMinute: 120, Burst: 60}
)

// Options configure a Service.
type Options struct {
	// Now is the clock of expiries (nil: time.Now).
	Now func() time.Time
	// Logger receives audit events that could not be written (nil:
	// slog.Default()).
	Logger *slog.Logger
	// Limiter meters reads per link and per client address (nil: reads
	// are not limited). Servers pass the database limiter, which every
	// instance shares.
	Limiter askrate.Limiter
	// LinkRate and AddressRate are the read rates (zero: the defaults).
	LinkRate, AddressRate askrate.Rate
}

// Service runs share links. It is safe for concurrent use.
type Service struct {
	client  *ent.Client
	now     func() time.Time
	log     *slog.Logger
	limiter askrate.Limiter
	link    askrate.Rate
	addr    askrate.Rate
}

// New returns the service on c.
func New(c *ent.Client, o Options) *Service {
	o.Now = defaults.Clock(o.Now)
	o.Logger = defaults.Logger(o.Logger)
	if o.LinkRate.PerMinute <= 0 || o.LinkRate.Burst <= 0 {
		o.LinkRate = DefaultLinkRate
	}
	if o.AddressRate.PerMinute <= 0 || o.AddressRate.Burst <= 0 {
		o.AddressRate = DefaultAddressRate
	}
	return &Service{client: c, now: o.Now, log: o.Logger, limiter: o.Limiter, link: o.LinkRate, addr: o.AddressRate}
}

// newToken returns a fresh token and its stored hash.
func newToken() (token, hash string, err error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, hashToken(token), nil
}

// hashToken returns the hex SHA-256 of token, the form the database keeps.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// wellFormed reports whether token could be one of ours (43 base64url
// characters), so that garbage costs no query.
func wellFormed(token string) bool {
	if len(token) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil
}

// audit writes the audit event of a lifecycle step of l as the viewer,
// with the owner's choice of restricted answers when the step made one
// (restrictedAnswersChoice "chosen"; restrictedAnswers, the answers
// restricted then; includedRestrictedAnswers, those the owner chose to
// show) or cleared it ("cleared", an empty choice). Failing to audit is logged, never hidden; the step has
// happened.
func (s *Service) audit(ctx context.Context, action string, l *ent.ShareLink, chosen *choice) {
	meta := map[string]string{
		"conversation": l.ConversationID.String(),
		"upToMessage":  l.UpToMessageID.String(),
		"audience":     l.Audience.String(),
	}
	if l.ExpiresAt != nil {
		meta["expiresAt"] = l.ExpiresAt.UTC().Format(time.RFC3339)
	}
	switch {
	case chosen != nil && chosen.restricted == nil:
		meta["restrictedAnswersChoice"] = "cleared"
	case chosen != nil:
		meta["restrictedAnswersChoice"] = "chosen"
		meta["restrictedAnswers"] = joinIDs(chosen.restricted)
		meta["includedRestrictedAnswers"] = joinIDs(chosen.included)
	}
	audit.Log(ctx, s.client.AuditEvent, s.log, audit.Event{Action: action, TargetType: "ShareLink", TargetID: l.ID.String(), Metadata: meta})
}

// joinIDs joins ids with commas.
func joinIDs(ids []uuid.UUID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ",")
}
