package sharing

import (
	"context"
	"slices"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Restricted answers (docs/API.md, "Share links"). An answer is built from
// every source it was given, cited or not: the model read them all. When a
// reader of a link may not read one of them, the answer itself would tell
// the reader what the source says, so Read withholds it from that reader,
// unless the owner was shown the answer among the link's restricted ones
// and chose to show it anyway (CreateInput/UpdateInput.IncludeRestricted).
// An answer with a source deleted since is withheld whatever the owner
// chose.

// Restriction says why a source of an answer is restricted for a link's
// audience.
type Restriction string

// The restrictions.
const (
	// RestrictedDocument: a document some reader of the audience may not
	// read (openTo).
	RestrictedDocument Restriction = "RESTRICTED_DOCUMENT"
	// RestrictedAttachment: an attachment of the conversation, which only
	// its owner reads.
	RestrictedAttachment Restriction = "ATTACHMENT"
	// RestrictedDeleted: the document or attachment was deleted.
	RestrictedDeleted Restriction = "DELETED"
)

// RestrictedAnswer is an answer on a link's path with sources some reader
// of the link's audience may not read.
type RestrictedAnswer struct {
	MessageID, AttemptID uuid.UUID
	// Sources are the restricted sources by rank.
	Sources []RestrictedSource
}

// RestrictedSource is one restricted source of an answer, as its owner may
// see it: Title (a document's title, an attachment's file name) is nil
// unless the owner may read it now.
type RestrictedSource struct {
	Label  string
	Title  *string
	Reason Restriction
}

// AudienceInput is who a link of a conversation's path would be for.
type AudienceInput struct {
	ConversationID, UpToMessageID uuid.UUID
	Audience                      sharelink.Audience
	// Users are the readers of a USERS link.
	Users []string
}

// RestrictedAnswers returns the answers a link of one of the viewer's own
// conversations, up to in.UpToMessageID, for in's audience, would withhold
// from some reader, for the owner to see before choosing
// (CreateInput.IncludeRestricted). It refuses what Create refuses, with the
// same errors.
func (s *Service) RestrictedAnswers(ctx context.Context, in AudienceInput) ([]RestrictedAnswer, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	users, err := s.checkAudience(ctx, in.Audience, in.Users)
	if err != nil {
		return nil, err
	}
	conv, err := s.ownConversation(ctx, v, in.ConversationID)
	if err != nil {
		return nil, err
	}
	path, err := s.frozenPath(ctx, conv.ID, in.UpToMessageID)
	if err != nil {
		return nil, err
	}
	answers, err := s.pathAnswers(ctx, conv.ID, path)
	if err != nil {
		return nil, err
	}
	return s.restricted(ctx, conv.TenantID, conv.ID, answers, in.Audience, users)
}

// LinkRestrictedAnswers returns the answers of the viewer's link l (read
// under the privacy rules, which show a link to its owner only) that are
// restricted for its audience now.
func (s *Service) LinkRestrictedAnswers(ctx context.Context, l *ent.ShareLink) ([]RestrictedAnswer, error) {
	answers, err := s.pathAnswers(ctx, l.ConversationID, l.PathMessageIds)
	if err != nil {
		return nil, err
	}
	return s.restricted(ctx, l.TenantID, l.ConversationID, answers, l.Audience, l.Users)
}

// pathAnswer is an answer on a path: its message and attempt.
type pathAnswer struct{ message, attempt uuid.UUID }

// pathAnswers returns the answers among path's messages of conversation
// convID, root first, read under the owner's privacy rules in ctx.
func (s *Service) pathAnswers(ctx context.Context, convID uuid.UUID, path []uuid.UUID) ([]pathAnswer, error) {
	if len(path) == 0 {
		return nil, nil
	}
	msgs, err := s.client.Message.Query().
		Where(message.IDIn(path...), message.ConversationID(convID), message.RoleEQ(message.RoleASSISTANT),
			message.AttemptIDNotNil()).
		Order(ent.Asc(message.FieldDepth)).
		Select(message.FieldAttemptID).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	out := make([]pathAnswer, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, pathAnswer{message: m.ID, attempt: *m.AttemptID})
	}
	return out, nil
}

// restricted returns the answers whose sources some reader of the
// audience (aud, users) of a link of conversation convID of tenant
// tenantID may not read. The sources are read under the owner's rules in
// ctx; which documents are open to the audience, as the audience's share
// scope (viewer.ShareAudience), since the owner may not read them all.
func (s *Service) restricted(ctx context.Context, tenantID string, convID uuid.UUID, answers []pathAnswer, aud sharelink.Audience, users []string) ([]RestrictedAnswer, error) {
	if len(answers) == 0 {
		return []RestrictedAnswer{}, nil
	}
	attempts := make([]uuid.UUID, len(answers))
	for i, a := range answers {
		attempts[i] = a.attempt
	}
	srcs, err := s.client.Source.Query().Where(source.AttemptIDIn(attempts...)).
		Order(ent.Asc(source.FieldRank)).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	docs, atts := sourceTargets(srcs)
	var open map[uuid.UUID]bool
	if probe, err := s.audience(ctx, tenantID, convID, aud, users); err != nil {
		return nil, err
	} else if probe != nil && len(docs) > 0 {
		open, err = sourceauth.ReadableDocuments(readaudit.Exempt(viewer.NewShareContext(ctx, *probe)), s.client, docs)
		if err != nil {
			return nil, store.DomainError(err, "document")
		}
	}
	// What the owner may read now, for the titles.
	ownerDocs, ownerAtts, err := s.readableBy(ctx, docs, atts)
	if err != nil {
		return nil, err
	}
	bySource := map[uuid.UUID][]RestrictedSource{}
	for _, src := range srcs {
		rs := RestrictedSource{Label: src.Label}
		title := src.DocumentTitle
		switch {
		case gone(src):
			rs.Reason = RestrictedDeleted
		case src.Kind == source.KindATTACHMENT:
			rs.Reason = RestrictedAttachment
			if ownerAtts[*src.AttachmentID] {
				rs.Title = &title
			}
		case open[*src.DocumentID]:
			continue
		default:
			rs.Reason = RestrictedDocument
			if ownerDocs[*src.DocumentID] {
				rs.Title = &title
			}
		}
		bySource[src.AttemptID] = append(bySource[src.AttemptID], rs)
	}
	out := []RestrictedAnswer{}
	for _, a := range answers {
		if rs := bySource[a.attempt]; len(rs) > 0 {
			out = append(out, RestrictedAnswer{MessageID: a.message, AttemptID: a.attempt, Sources: rs})
		}
	}
	return out, nil
}

// audience returns the share scope that reads the documents of the
// sources of conversation convID of tenant tenantID that every reader of
// the audience may read, or nil when none is: for TENANT (and for PUBLIC,
// only while the tenant shows public links' sources) a document any member
// may read without a grant (authz's ACL for a member no grant names), for
// USERS one each listed user may read by their user id (their groups are
// known only from their tokens, so a grant to a group does not count).
func (s *Service) audience(ctx context.Context, tenantID string, convID uuid.UUID, aud sharelink.Audience, users []string) (*viewer.ShareAudience, error) {
	probe := &viewer.ShareAudience{TenantID: tenantID, ConversationID: convID}
	switch aud {
	case sharelink.AudiencePUBLIC:
		st, err := tenantsettings.Effective(ctx, s.client)
		if err != nil {
			return nil, err
		}
		if !st.PublicShareSources {
			return nil, nil
		}
	case sharelink.AudienceUSERS:
		probe.Users = append([]string{}, users...)
	}
	return probe, nil
}

// readableBy returns which of the documents docs and attachments atts the
// viewer in ctx may read now, by the privacy rules (an attachment: only
// its owner).
func (s *Service) readableBy(ctx context.Context, docs, atts []uuid.UUID) (map[uuid.UUID]bool, map[uuid.UUID]bool, error) {
	d, err := sourceauth.ReadableDocuments(ctx, s.client, docs)
	if err != nil {
		return nil, nil, store.DomainError(err, "document")
	}
	a, err := sourceauth.ReadableAttachments(ctx, s.client, atts)
	if err != nil {
		return nil, nil, store.DomainError(err, "attachment")
	}
	return d, a, nil
}

// sourceTargets returns the distinct documents and attachments srcs name.
func sourceTargets(srcs []*ent.Source) (docs, atts []uuid.UUID) {
	for _, src := range srcs {
		switch {
		case gone(src):
		case src.Kind == source.KindATTACHMENT:
			if !slices.Contains(atts, *src.AttachmentID) {
				atts = append(atts, *src.AttachmentID)
			}
		default:
			if !slices.Contains(docs, *src.DocumentID) {
				docs = append(docs, *src.DocumentID)
			}
		}
	}
	return docs, atts
}

// gone reports whether src's document or attachment was deleted (the
// foreign key is set to null) or never recorded (a redacted copy).
func gone(src *ent.Source) bool {
	if src.Kind == source.KindATTACHMENT {
		return src.AttachmentID == nil
	}
	return src.DocumentID == nil
}

// choice is an owner's choice of restricted answers for one audience: the
// answers restricted when it was made, and those the owner included.
type choice struct {
	restricted, included []uuid.UUID
}

// choose checks include (attempt ids the owner was shown and chose to
// show) against the answers of path for the audience: an id that is not
// an answer on the path is BAD_USER_INPUT (field
// includeRestrictedAnswers). The ones restricted now are kept; one that
// is not (restricted for another audience, or not any more) is not, so
// that it is withheld if it becomes restricted later.
func (s *Service) choose(ctx context.Context, tenantID string, convID uuid.UUID, path []uuid.UUID, aud sharelink.Audience, users []string, include []uuid.UUID) (choice, error) {
	answers, err := s.pathAnswers(ctx, convID, path)
	if err != nil {
		return choice{}, err
	}
	for _, id := range include {
		if !slices.ContainsFunc(answers, func(a pathAnswer) bool { return a.attempt == id }) {
			return choice{}, badInclude()
		}
	}
	rs, err := s.restricted(ctx, tenantID, convID, answers, aud, users)
	if err != nil {
		return choice{}, err
	}
	c := choice{restricted: []uuid.UUID{}, included: []uuid.UUID{}}
	for _, r := range rs {
		c.restricted = append(c.restricted, r.AttemptID)
		if slices.Contains(include, r.AttemptID) {
			c.included = append(c.included, r.AttemptID)
		}
	}
	return c, nil
}
