package sharing

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/clientaddr"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// SharedConversation is what a reader of a share link sees, built only
// from allow-listed fields: the title and the frozen path's questions and
// answers. Owner, tenant, trace, model, manifest, feedback and attempt
// lineage never reach it.
type SharedConversation struct {
	Title    string
	Messages []SharedMessage
}

// SharedMessage is one question or answer on the path.
type SharedMessage struct {
	Role      string
	Content   string
	CreatedAt time.Time
	// Sources are an answer's sources by rank, re-authorised for the
	// reader; a question has none.
	Sources []SharedSource
	// Withheld is set on an answer withheld from the reader
	// (restricted.go): Content is then empty and Sources too.
	Withheld bool
	// WithheldReason says why: WithheldSourcesRestricted.
	WithheldReason string
}

// WithheldSourcesRestricted is the reason of a withheld answer: it cites a
// source the reader may not read (or one deleted since), and its owner
// did not choose to show it.
const WithheldSourcesRestricted = "SOURCES_RESTRICTED"

// SharedSource is one source of an answer. When the reader may not read
// its document now, Available is false and Title and Snippet are empty.
type SharedSource struct {
	Label     string
	Cited     bool
	Available bool
	Title     string
	Snippet   string
}

// errNotFound is every refusal of a token: unknown, revoked, expired, of
// a deleted conversation, or for a reader outside the audience. One value,
// so the answers are byte-identical.
var errNotFound = domain.NotFound(linkKind)

// Read returns the share that token opens for the reader in ctx (a viewer,
// or nobody). A TENANT link needs a viewer of the link's tenant, a USERS
// link one of its users (or its owner), a PUBLIC link nobody, while the
// tenant allows public links. Every refusal is the same NOT_FOUND. Reads
// are limited per client address (clientaddr) and per link, with
// RATE_LIMITED and extensions.retryAfterSeconds; each read adds one to the
// link's read count with one UPDATE. An IPv6 client is metered by its
// /64 (clientaddr.Bucket); idle buckets are swept (sweep.go).
//
// The reads run as share scopes through Ent's privacy rules
// (internal/authz, share.go), never as a viewer or a system job: the
// lookup as viewer.ShareLookup, which reaches only the open link with the
// token's hash (not revoked, not expired, its conversation not gone) and
// its tenant's row; then, once the reader is admitted, the path as
// viewer.ShareReader, which reaches only the link's conversation (not a
// temporary chat), its frozen path, their sources and, for a reader who
// is not a member of the tenant while the tenant shows sources on public
// links, the documents visible to the whole tenant. A member re-authorises
// the sources as their own viewer (the chunk's document must be readable
// by them now). An answer with a source the reader may not read is
// withheld unless the owner chose to show it (restricted.go).
func (s *Service) Read(ctx context.Context, token string) (*SharedConversation, error) {
	if addr := clientaddr.FromContext(ctx); addr != "" {
		if err := s.take(ctx, "addr:"+clientaddr.Bucket(addr), s.addr); err != nil {
			return nil, err
		}
	}
	if !wellFormed(token) {
		return nil, errNotFound
	}
	now := s.now()
	lookup := readaudit.Exempt(viewer.NewShareContext(ctx, viewer.ShareLookup{TokenHash: hashToken(token), At: now}))
	l, err := s.client.ShareLink.Query().Where(sharelink.TokenHash(hashToken(token))).Only(lookup)
	if err != nil {
		return nil, notFoundOr(err)
	}
	t, err := s.client.Tenant.Get(lookup, l.TenantID)
	if err != nil {
		return nil, notFoundOr(err)
	}
	st := t.Settings
	reader := viewer.FromContext(ctx)
	member := reader != nil && reader.TenantID == l.TenantID
	if !admits(l, st.PublicShareLinks, reader, member) {
		return nil, errNotFound
	}
	scope := readaudit.Exempt(viewer.NewShareContext(ctx, viewer.ShareReader{
		TenantID: l.TenantID, LinkID: l.ID, ConversationID: l.ConversationID, PathMessageIDs: l.PathMessageIds,
		TenantDocuments: !member && st.PublicShareSources, At: now,
	}))
	// A temporary chat is never shared (links.go): the scope does not
	// reach one, whether or not it has expired.
	conv, err := s.client.Conversation.Get(scope, l.ConversationID)
	if err != nil {
		return nil, notFoundOr(err)
	}
	if err := s.take(ctx, "link:"+l.ID.String(), s.link); err != nil {
		return nil, err
	}
	// Documents are read as the member, or as the scope for anyone else
	// while the tenant shows sources on public links, or not at all.
	var docs context.Context
	switch {
	case member:
		docs = ctx
	case st.PublicShareSources:
		docs = scope
	}
	out, err := s.shared(scope, docs, member, l, conv)
	if err != nil {
		return nil, err
	}
	err = s.client.ShareLink.Update().Where(sharelink.ID(l.ID)).
		AddReadCount(1).SetLastReadAt(now).Exec(scope)
	if err != nil {
		return nil, store.DomainError(err, linkKind)
	}
	return out, nil
}

// admits reports whether the reader may open l.
func admits(l *ent.ShareLink, publicOn bool, reader *viewer.Viewer, member bool) bool {
	switch l.Audience {
	case sharelink.AudiencePUBLIC:
		return publicOn
	case sharelink.AudienceTENANT:
		return member
	case sharelink.AudienceUSERS:
		return member && (reader.UserID == l.OwnerID || slices.Contains(l.Users, reader.UserID))
	}
	return false
}

// shared builds the reader's view of l's frozen path, read in scope (the
// link's ShareReader). docs is the context that reads documents and
// chunks for the reader (nil: the reader may read none); member says it
// is the reader's own viewer, which also reads attachments.
func (s *Service) shared(scope, docs context.Context, member bool, l *ent.ShareLink, conv *ent.Conversation) (*SharedConversation, error) {
	msgs, err := s.client.Message.Query().
		Where(message.IDIn(l.PathMessageIds...), message.RoleIn(message.RoleUSER, message.RoleASSISTANT)).
		Order(ent.Asc(message.FieldDepth)).
		Select(message.FieldRole, message.FieldContent, message.FieldCreatedAt, message.FieldAttemptID).All(scope)
	if err != nil {
		return nil, store.DomainError(err, linkKind)
	}
	var attempts []uuid.UUID
	for _, m := range msgs {
		if m.Role == message.RoleASSISTANT && m.AttemptID != nil {
			attempts = append(attempts, *m.AttemptID)
		}
	}
	byAttempt := map[uuid.UUID][]SharedSource{}
	withheld := map[uuid.UUID]bool{}
	if len(attempts) > 0 {
		srcs, err := s.client.Source.Query().Where(source.AttemptIDIn(attempts...)).
			Order(ent.Asc(source.FieldRank)).All(scope)
		if err != nil {
			return nil, store.DomainError(err, linkKind)
		}
		readable, err := readableChunks(docs, s.client, srcs)
		if err != nil {
			return nil, err
		}
		for _, src := range srcs {
			v := SharedSource{Label: src.Label, Cited: src.Cited}
			if src.ChunkID != nil && readable[*src.ChunkID] {
				v.Available, v.Title, v.Snippet = true, src.DocumentTitle, src.Snippet
			}
			byAttempt[src.AttemptID] = append(byAttempt[src.AttemptID], v)
		}
		if withheld, err = s.withheld(docs, member, l, srcs); err != nil {
			return nil, err
		}
	}
	out := &SharedConversation{Title: conv.Title, Messages: make([]SharedMessage, 0, len(msgs))}
	for _, m := range msgs {
		sm := SharedMessage{Role: m.Role.String(), Content: m.Content, CreatedAt: m.CreatedAt, Sources: []SharedSource{}}
		switch {
		case m.Role != message.RoleASSISTANT || m.AttemptID == nil:
		case withheld[*m.AttemptID]:
			sm.Content, sm.Withheld, sm.WithheldReason = "", true, WithheldSourcesRestricted
		case byAttempt[*m.AttemptID] != nil:
			sm.Sources = byAttempt[*m.AttemptID]
		}
		out.Messages = append(out.Messages, sm)
	}
	return out, nil
}

// withheld returns the attempts of srcs to withhold from the reader: those
// with a source whose document or attachment the reader may not read now
// (documents read in docs, attachments only when docs is the reader's own
// context, member; nil docs reads none) unless the owner chose to show
// them on l, and those with a source deleted since whatever the owner
// chose.
func (s *Service) withheld(docs context.Context, member bool, l *ent.ShareLink, srcs []*ent.Source) (map[uuid.UUID]bool, error) {
	docIDs, atts := sourceTargets(srcs)
	var readDocs, readAtts map[uuid.UUID]bool
	var err error
	switch {
	case member:
		if readDocs, readAtts, err = s.readableBy(docs, docIDs, atts); err != nil {
			return nil, err
		}
	case docs != nil:
		if readDocs, err = sourceauth.ReadableDocuments(docs, s.client, docIDs); err != nil {
			return nil, store.DomainError(err, "document")
		}
	}
	out := map[uuid.UUID]bool{}
	for _, src := range srcs {
		switch {
		case gone(src):
			out[src.AttemptID] = true
		case src.Kind == source.KindATTACHMENT && readAtts[*src.AttachmentID]:
		case src.Kind != source.KindATTACHMENT && readDocs[*src.DocumentID]:
		case l.RestrictedAnswersChosenAt != nil && slices.Contains(l.IncludedAttemptIds, src.AttemptID):
		default:
			out[src.AttemptID] = true
		}
	}
	return out, nil
}

// readableChunks returns which chunks of srcs may be read in docs (the
// reader's own context or their share scope; nil: none).
func readableChunks(docs context.Context, client *ent.Client, srcs []*ent.Source) (map[uuid.UUID]bool, error) {
	var ids []uuid.UUID
	for _, src := range srcs {
		if src.ChunkID != nil {
			ids = append(ids, *src.ChunkID)
		}
	}
	if docs == nil {
		return map[uuid.UUID]bool{}, nil
	}
	readable, err := sourceauth.ReadableChunks(docs, client, ids)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	return readable, nil
}

// take takes one read from key's bucket, or returns RATE_LIMITED.
func (s *Service) take(ctx context.Context, key string, r askrate.Rate) error {
	return askrate.Take(ctx, s.limiter, askrate.Key(bucketTenant, key), r, "reads of share links", LimitShareReads)
}

// LimitShareReads names the share read rate in RATE_LIMITED errors.
const LimitShareReads = "shareReads"

// notFoundOr maps a missing row to errNotFound and keeps other failures.
func notFoundOr(err error) error {
	if ent.IsNotFound(err) {
		return errNotFound
	}
	return store.DomainError(err, linkKind)
}
