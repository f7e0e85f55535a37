package sharing

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// CreateInput is a new share link.
type CreateInput struct {
	ConversationID uuid.UUID
	// UpToMessageID is the last message the link shows; the path from the
	// conversation's root to it is frozen now.
	UpToMessageID uuid.UUID
	Audience      sharelink.Audience
	// Users names the readers of a USERS link (and must be empty
	// otherwise).
	Users []string
	// ExpiresAt, when set, must be in the future.
	ExpiresAt *time.Time
	// IncludeRestricted, when not nil, records the owner's choice: the
	// answers (attempt ids) they were shown by RestrictedAnswers and chose
	// to show anyway (restricted.go). Nil: no choice, every restricted
	// answer is withheld.
	IncludeRestricted []uuid.UUID
}

// UpdateInput changes a link; nil fields stay as they are. The token
// stays the same.
type UpdateInput struct {
	Audience *sharelink.Audience
	// Users replaces the readers of a USERS link (nil: unchanged).
	Users []string
	// ExpiresAt sets the expiry; ClearExpiresAt removes it.
	ExpiresAt      *time.Time
	ClearExpiresAt bool
	// IncludeRestricted, when not nil, records the owner's choice of
	// restricted answers for the link's audience after the update. Nil
	// keeps the choice, unless the audience or its users change: then
	// the choice is cleared and every restricted answer withheld.
	IncludeRestricted []uuid.UUID
}

// Create makes a share link of one of the viewer's own conversations and
// returns it with its token, which is never shown again. Someone else's
// conversation (admins included), an unknown one and a message not in the
// conversation are NOT_FOUND; a temporary chat is BAD_USER_INPUT (field
// conversationId); PUBLIC while the tenant does not allow it is
// BAD_USER_INPUT (field audience); an id of IncludeRestricted that is not
// an answer on the path is BAD_USER_INPUT (field includeRestrictedAnswers).
func (s *Service) Create(ctx context.Context, in CreateInput) (*ent.ShareLink, string, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, "", err
	}
	users, err := s.checkAudience(ctx, in.Audience, in.Users)
	if err != nil {
		return nil, "", err
	}
	if err := s.checkExpiry(in.ExpiresAt); err != nil {
		return nil, "", err
	}
	conv, err := s.ownConversation(ctx, v, in.ConversationID)
	if err != nil {
		return nil, "", err
	}
	path, err := s.frozenPath(ctx, conv.ID, in.UpToMessageID)
	if err != nil {
		return nil, "", err
	}
	var chosen *choice
	if in.IncludeRestricted != nil {
		c, err := s.choose(ctx, conv.TenantID, conv.ID, path, in.Audience, users, in.IncludeRestricted)
		if err != nil {
			return nil, "", err
		}
		chosen = &c
	}
	token, hash, err := newToken()
	if err != nil {
		return nil, "", domain.Wrap(err, domain.CodeInternal, "no randomness for the token")
	}
	now := s.now()
	c := s.client.ShareLink.Create().SetOwnerID(v.UserID).SetConversationID(conv.ID).
		SetUpToMessageID(in.UpToMessageID).SetPathMessageIds(path).SetAudience(in.Audience).
		SetTokenHash(hash).SetNillableExpiresAt(in.ExpiresAt).SetCreatedAt(now).SetUpdatedAt(now)
	if users != nil {
		c.SetUsers(users)
	}
	if chosen != nil {
		c.SetIncludedAttemptIds(chosen.included).SetRestrictedAnswersChosenAt(now)
	}
	l, err := c.Save(ctx)
	if err != nil {
		return nil, "", store.DomainError(err, linkKind)
	}
	s.audit(ctx, ActionCreated, l, chosen)
	return l, token, nil
}

// ownConversation returns the viewer's own conversation id: anyone
// else's (admins included) and an unknown one are NOT_FOUND, a temporary
// chat BAD_USER_INPUT (field conversationId).
func (s *Service) ownConversation(ctx context.Context, v *viewer.Viewer, id uuid.UUID) (*ent.Conversation, error) {
	conv, err := s.client.Conversation.Query().
		Where(conversation.ID(id), conversation.UserID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if authz.IsTemporary(conv) {
		return nil, domain.Errorf(domain.CodeBadUserInput, "a temporary chat cannot be shared").
			With("field", "conversationId")
	}
	return conv, nil
}

// badInclude is the refusal of an includeRestrictedAnswers id that is not
// an answer on the link's path.
func badInclude() error {
	return domain.Errorf(domain.CodeBadUserInput, "includeRestrictedAnswers names an answer that is not on the shared path").
		With("field", "includeRestrictedAnswers")
}

// frozenPath returns the ids of the messages from the root of conversation
// convID to upTo, in order: upTo's ancestors as they are now. Messages
// never change their parent, so the path stays the same; later messages
// and other branches are not on it.
func (s *Service) frozenPath(ctx context.Context, convID, upTo uuid.UUID) ([]uuid.UUID, error) {
	last, err := s.client.Message.Query().
		Where(message.ID(upTo), message.ConversationID(convID)).Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	rows, err := s.client.Message.Query().
		Where(message.ConversationID(convID), message.DepthLTE(last.Depth)).
		Select(message.FieldID, message.FieldParentID).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	parent := make(map[uuid.UUID]*uuid.UUID, len(rows))
	for _, m := range rows {
		parent[m.ID] = m.ParentID
	}
	path := []uuid.UUID{last.ID}
	for p := last.ParentID; p != nil; p = parent[*p] {
		if _, ok := parent[*p]; !ok || len(path) > len(rows) {
			break
		}
		path = append(path, *p)
	}
	slices.Reverse(path)
	return path, nil
}

// Update changes the audience, readers, expiry or choice of restricted
// answers of one of the viewer's links, keeping its token. Someone else's
// link, an unknown one and a link of a deleted conversation are NOT_FOUND;
// a revoked link is BAD_USER_INPUT (field id).
func (s *Service) Update(ctx context.Context, id uuid.UUID, in UpdateInput) (*ent.ShareLink, error) {
	l, err := s.own(ctx, id)
	if err != nil {
		return nil, err
	}
	if l.RevokedAt != nil {
		return nil, domain.Errorf(domain.CodeBadUserInput, "the share link is revoked").With("field", "id")
	}
	aud := l.Audience
	if in.Audience != nil {
		aud = *in.Audience
	}
	users := l.Users
	if in.Users != nil {
		users = in.Users
	} else if aud != sharelink.AudienceUSERS {
		users = nil
	}
	users, err = s.checkAudience(ctx, aud, users)
	if err != nil {
		return nil, err
	}
	if err := s.checkExpiry(in.ExpiresAt); err != nil {
		return nil, err
	}
	var chosen *choice
	if in.IncludeRestricted != nil {
		c, err := s.choose(ctx, l.TenantID, l.ConversationID, l.PathMessageIds, aud, users, in.IncludeRestricted)
		if err != nil {
			return nil, err
		}
		chosen = &c
	}
	now := s.now()
	u := l.Update().SetAudience(aud).SetUpdatedAt(now)
	if users != nil {
		u.SetUsers(users)
	} else {
		u.ClearUsers()
	}
	switch {
	case chosen != nil:
		u.SetIncludedAttemptIds(chosen.included).SetRestrictedAnswersChosenAt(now)
	case aud != l.Audience || !sameUsers(users, l.Users):
		// The choice was made for another audience.
		chosen = &choice{}
		u.ClearIncludedAttemptIds().ClearRestrictedAnswersChosenAt()
	}
	switch {
	case in.ClearExpiresAt:
		u.ClearExpiresAt()
	case in.ExpiresAt != nil:
		u.SetExpiresAt(*in.ExpiresAt)
	}
	if l, err = u.Save(ctx); err != nil {
		return nil, store.DomainError(err, linkKind)
	}
	s.audit(ctx, ActionUpdated, l, chosen)
	return l, nil
}

// sameUsers reports whether a and b name the same users.
func sameUsers(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(u string) bool { return !slices.Contains(b, u) })
}

// Revoke ends one of the viewer's links at once, on every instance (reads
// look the link up in the database each time). Revoking a revoked link
// changes nothing; someone else's link and an unknown one are NOT_FOUND.
func (s *Service) Revoke(ctx context.Context, id uuid.UUID) (*ent.ShareLink, error) {
	l, err := s.own(ctx, id)
	if err != nil {
		return nil, err
	}
	if l.RevokedAt != nil {
		return l, nil
	}
	now := s.now()
	if l, err = l.Update().SetRevokedAt(now).SetUpdatedAt(now).Save(ctx); err != nil {
		return nil, store.DomainError(err, linkKind)
	}
	s.audit(ctx, ActionRevoked, l, nil)
	return l, nil
}

// Mine returns the query of the viewer's own links, newest first by
// default; the privacy rules already limit it to them.
func (s *Service) Mine(ctx context.Context) (*ent.ShareLinkQuery, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	return s.client.ShareLink.Query().Where(sharelink.OwnerID(v.UserID)), nil
}

// own returns the viewer's link id.
func (s *Service) own(ctx context.Context, id uuid.UUID) (*ent.ShareLink, error) {
	if _, err := viewer.Require(ctx); err != nil {
		return nil, err
	}
	l, err := s.client.ShareLink.Get(ctx, id)
	if err != nil {
		return nil, store.DomainError(err, linkKind)
	}
	return l, nil
}

// checkAudience validates an audience and its readers and returns the
// readers to store (trimmed, without duplicates; nil unless USERS).
func (s *Service) checkAudience(ctx context.Context, aud sharelink.Audience, users []string) ([]string, error) {
	if err := sharelink.AudienceValidator(aud); err != nil {
		return nil, domain.Errorf(domain.CodeBadUserInput, "audience must be TENANT, USERS or PUBLIC").With("field", "audience")
	}
	if aud == sharelink.AudiencePUBLIC {
		st, err := tenantsettings.Effective(ctx, s.client)
		if err != nil {
			return nil, err
		}
		if !st.PublicShareLinks {
			return nil, domain.Errorf(domain.CodeBadUserInput, "the tenant does not allow public share links").
				With("field", "audience")
		}
	}
	if aud != sharelink.AudienceUSERS {
		if len(users) > 0 {
			return nil, domain.Errorf(domain.CodeBadUserInput, "users are only for the USERS audience").With("field", "users")
		}
		return nil, nil
	}
	out := make([]string, 0, len(users))
	for _, u := range users {
		u = strings.TrimSpace(u)
		if u == "" || len(u) > maxUserIDChars {
			return nil, domain.Errorf(domain.CodeBadUserInput, "a user id must have 1 to %d characters", maxUserIDChars).With("field", "users")
		}
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	if len(out) == 0 || len(out) > MaxUsers {
		return nil, domain.Errorf(domain.CodeBadUserInput, "a USERS link names 1 to %d users", MaxUsers).With("field", "users")
	}
	return out, nil
}

// checkExpiry refuses an expiry that is not in the future.
func (s *Service) checkExpiry(at *time.Time) error {
	if at != nil && !at.After(s.now()) {
		return domain.Errorf(domain.CodeBadUserInput, "expiresAt must be in the future").With("field", "expiresAt")
	}
	return nil
}
