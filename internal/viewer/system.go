package viewer

import "context"

// Job names a background job that may act as the system, across tenants and
// owners. The set is closed: the only values are the ones declared below, so
// request data can never produce one.
type Job struct{ name string }

// String returns the job's name, for logs and audit events.
func (j Job) String() string { return j.name }

// The background jobs allowed to bypass tenant and owner filtering.
var (
	// JobReaper fails PENDING attempts whose lease has expired.
	JobReaper = Job{"reaper"}
	// JobPurge hard-deletes conversations, audit events and feedback past
	// their tenant's retention.
	JobPurge = Job{"purge"}
	// JobProvision creates tenants and loads the built-in demo knowledge.
	JobProvision = Job{"provision"}
	// JobTreeBackfill sets the message tree of conversations written
	// before message trees (internal/chat/treebackfill).
	JobTreeBackfill = Job{"treebackfill"}
	// JobSearchBackfill writes the search entries of messages and titles
	// written before conversation search (internal/convsearch).
	JobSearchBackfill = Job{"searchbackfill"}
	// JobPersistedQueries reads and writes the shared table of automatic
	// persisted queries (internal/persisted), which holds no tenant data;
	// it is the only job that table's policy allows.
	JobPersistedQueries = Job{"persistedqueries"}
	// JobModelProfile reads, by id and tenant, the model profile an
	// attempt or conversation already recorded, and counts a tenant's
	// enabled profiles (internal/modelprofile). It never writes.
	JobModelProfile = Job{"modelprofile"}
	// JobMeter writes the usage ledger and its quota counters
	// (internal/quota): reservations, settlements and refunds of the
	// model calls of every tenant.
	JobMeter = Job{"meter"}
	// JobSharedSecrets writes and reads the secrets every replica on the
	// database agrees on without configuration (internal/sharedsecret: the
	// development broker secret); it is the only job that table's policy
	// allows.
	JobSharedSecrets = Job{"sharedsecrets"}
	// JobAttachments processes uploaded attachments (scan, text, chunks)
	// in the background for their owners, and takes over those whose
	// processing lease expired (internal/attachment).
	JobAttachments = Job{"attachments"}
)

type systemKey struct{}

// SystemJobContext returns a context in which job acts as the system: Ent
// privacy rules allow it everything. It is the one way to step outside
// tenant filtering, and it drops any viewer or share scope that parent
// carried.
func SystemJobContext(parent context.Context, job Job) context.Context {
	ctx := context.WithValue(parent, viewerKey{}, (*Viewer)(nil))
	ctx = context.WithValue(ctx, shareKey{}, nil)
	return context.WithValue(ctx, systemKey{}, job)
}

// SystemJob returns the job ctx runs as, if it is a system job context.
func SystemJob(ctx context.Context) (Job, bool) {
	j, ok := ctx.Value(systemKey{}).(Job)
	return j, ok && j.name != ""
}
