package viewer

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// The principals of share links (internal/sharing). A share link is read
// by someone who need not be a viewer of its tenant, so its reads run as
// one of these scopes instead, and Ent's privacy rules (internal/authz,
// share.go) let each reach exactly the rows it names and nothing else:
// no write but a read count, no other table, no other row. A scope
// context carries no viewer and no system job, so the roles of whoever
// asked (an admin, a support agent under a grant) widen nothing.
//
// internal/sharing alone builds them, from the token's hash and from a
// link row it read and admitted, never from request data; a test in this
// package keeps it so.

// ShareScope is one of ShareLookup, ShareReader and ShareAudience.
type ShareScope interface{ shareScope() }

// ShareLookup finds one share link by its token's hash: the link with
// that hash that is neither revoked nor expired at At and whose
// conversation is not gone, and its tenant's row (the tenant's settings
// decide who may open it).
type ShareLookup struct {
	TokenHash string
	At        time.Time
}

// ShareReader reads what an admitted reader of one share link sees: the
// link's conversation (while it is live and not a temporary chat), the
// messages of the link's frozen path and the sources of their attempts,
// and, with TenantDocuments, the documents of the tenant visible to the
// whole tenant and their chunks. Its only write adds to the link's read
// count. Every row is reachable only while the link is neither revoked
// nor expired at At.
type ShareReader struct {
	TenantID       string
	LinkID         uuid.UUID
	ConversationID uuid.UUID
	// PathMessageIDs are the link's frozen path.
	PathMessageIDs []uuid.UUID
	// TenantDocuments lets a reader who is not a member of the tenant
	// (of a PUBLIC link, while the tenant shows its sources) read the
	// documents visible to the whole tenant. A member reads documents as
	// their own viewer instead.
	TenantDocuments bool
	// At is the read's instant, the clock of the link's expiry.
	At time.Time
}

// ShareAudience asks, for the owner of a link of conversation
// ConversationID, which documents that conversation's sources cite every
// reader of the link's audience may read: with Users nil, any member of
// the tenant whom no grant names (TENANT, PUBLIC); otherwise each of
// Users by their user id (USERS). It reads documents only.
type ShareAudience struct {
	TenantID       string
	ConversationID uuid.UUID
	Users          []string
}

func (ShareLookup) shareScope()   {}
func (ShareReader) shareScope()   {}
func (ShareAudience) shareScope() {}

type shareKey struct{}

// NewShareContext returns a copy of parent that acts as the scope s: it
// drops any viewer and system job parent carried.
func NewShareContext(parent context.Context, s ShareScope) context.Context {
	ctx := context.WithValue(parent, viewerKey{}, (*Viewer)(nil))
	ctx = context.WithValue(ctx, systemKey{}, Job{})
	return context.WithValue(ctx, shareKey{}, s)
}

// ShareScopeFrom returns the share scope ctx acts as, or nil.
func ShareScopeFrom(ctx context.Context) ShareScope {
	s, _ := ctx.Value(shareKey{}).(ShareScope)
	return s
}
