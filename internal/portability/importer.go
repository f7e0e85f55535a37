package portability

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// ImportInput is one import: the content in Format, the knowledge base the
// new conversations search (nil: the tenant's oldest) and an optional
// idempotency key.
type ImportInput struct {
	Format          ImportFormat
	Content         string
	KnowledgeBaseID *uuid.UUID
	ClientRequestID string
}

// draft is one parsed conversation, before ids are chosen: its messages
// come parents first, each naming its parent (and the message it edits)
// by index, -1 for none.
type draft struct {
	title     string
	createdAt time.Time
	strategy  *domain.HistoryStrategy
	messages  []draftMessage
	// leaf is the index of the current leaf (-1: the last message).
	leaf int
}

// draftMessage is one message of a draft.
type draftMessage struct {
	parent, editedFrom int
	role               message.Role
	content            string
	createdAt          time.Time
	model              *string
	promptTokens       int
	completionTokens   int
	completedAt        *time.Time
}

// Import writes the conversations of in.Content as new conversations of
// the viewer, all or none, and returns them in the order of the content
// (package comment). A replayed ClientRequestID returns what it imported;
// the same key with other content (or another format or knowledge base)
// is IDEMPOTENCY_MISMATCH, and a key whose conversations were deleted is
// NOT_FOUND. Before the content is parsed, the import is admitted
// (importadmit.go): a running slot, one import of the viewer's rate, and
// Limits.Timeout for all of it.
func (s *Service) Import(ctx context.Context, in ImportInput) ([]*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	if n := s.limits.ContentBytes; len(in.Content) > n {
		return nil, domain.OverLimit("content", LimitImportSize, n, "the content is longer than %d bytes", n)
	}
	if in.KnowledgeBaseID != nil {
		// A knowledge base the viewer may not read is NOT_FOUND before
		// any content is read.
		if _, err := conversations.KnowledgeBase(ctx, s.client, in.KnowledgeBaseID); err != nil {
			return nil, err
		}
	}
	key := ""
	if in.ClientRequestID != "" {
		if key, err = domain.CheckClientID("clientRequestId", in.ClientRequestID); err != nil {
			return nil, err
		}
	}
	release, err := s.admit(ctx, v)
	if err != nil {
		return nil, err
	}
	defer release()
	run, cancel := context.WithTimeout(ctx, s.limits.Timeout)
	defer cancel()
	out, err := s.importContent(run, v, in, key)
	return out, s.timedOut(ctx, run, err)
}

// importContent parses in.Content and writes it under ctx (Import).
func (s *Service) importContent(ctx context.Context, v *viewer.Viewer, in ImportInput, key string) ([]*ent.Conversation, error) {
	var (
		drafts []draft
		err    error
	)
	b := &budget{lim: s.limits}
	switch in.Format {
	case ImportRagchatJSON:
		drafts, err = parseRagchat(ctx, in.Content, b)
	case ImportChatGPT:
		drafts, err = parseChatGPT(ctx, in.Content, b)
	default:
		return nil, domain.BadInput("format", "unknown import format %q", in.Format)
	}
	if err != nil {
		return nil, err
	}
	convs := s.assignIDs(v, in, key, drafts)
	if key != "" {
		if out, err := s.replay(ctx, v, convs); out != nil || err != nil {
			return out, err
		}
	}
	out, err := s.write(ctx, in.KnowledgeBaseID, convs)
	if err != nil && key != "" && ent.IsConstraintError(err) {
		// A concurrent import with the same key won, or the key's
		// conversations exist but are hidden: they were deleted.
		if out, rerr := s.replay(ctx, v, convs); out != nil || rerr != nil {
			return out, rerr
		}
		return nil, domain.NotFound("conversation")
	}
	return out, err
}

// assignIDs gives drafts their ids: random ones without a key; with one,
// ids derived from the viewer, the key and the conversation's position
// (conversations) and from the content's digest (messages), so that a
// replay finds what the key wrote and tells other content apart.
func (s *Service) assignIDs(v *viewer.Viewer, in ImportInput, key string, drafts []draft) []importConv {
	kb := ""
	if in.KnowledgeBaseID != nil {
		kb = in.KnowledgeBaseID.String()
	}
	digest := sha256.Sum256([]byte(string(in.Format) + "\x00" + kb + "\x00" + in.Content))
	out := make([]importConv, len(drafts))
	for i, d := range drafts {
		c := importConv{Title: d.title, CreatedAt: d.createdAt, HistoryStrategy: d.strategy}
		if key == "" {
			c.ID = uuid.New()
		} else {
			c.ID = uuid.NewSHA1(importNamespace, []byte(strings.Join([]string{v.TenantID, v.UserID, key, fmt.Sprint(i)}, "\x00")))
		}
		ids := make([]uuid.UUID, len(d.messages))
		for j := range d.messages {
			if key == "" {
				ids[j] = uuid.New()
			} else {
				ids[j] = uuid.NewSHA1(c.ID, append(digest[:], []byte(fmt.Sprint(j))...))
			}
		}
		at := func(j int) *uuid.UUID {
			if j < 0 {
				return nil
			}
			id := ids[j]
			return &id
		}
		c.Messages = make([]importMsg, len(d.messages))
		for j, m := range d.messages {
			c.Messages[j] = importMsg{
				ID: ids[j], ParentID: at(m.parent), EditedFromID: at(m.editedFrom),
				Role: m.role, Content: m.content, CreatedAt: m.createdAt, Model: m.model,
				PromptTokens: m.promptTokens, CompletionTokens: m.completionTokens, CompletedAt: m.completedAt,
			}
		}
		if d.leaf >= 0 {
			c.LeafID = at(d.leaf)
		}
		out[i] = c
	}
	return out
}

// importNamespace is the UUID namespace of the ids an idempotent import
// derives.
var importNamespace = uuid.MustParse("6f1d3c2e-5b7a-4e0f-9a41-2c8d7e6b9f10")

// replay returns the conversations an earlier import with the same key
// wrote (convs carry the ids it derived), nil when it wrote none, NOT_FOUND
// when some of them are gone, and IDEMPOTENCY_MISMATCH when the key
// imported other content: the first message of each conversation has an
// id derived from the content, so other content names another.
func (s *Service) replay(ctx context.Context, v *viewer.Viewer, convs []importConv) ([]*ent.Conversation, error) {
	mismatch := domain.Errorf(domain.CodeIdempotencyMismatch, "clientRequestId was already used to import other content")
	if len(convs) == 0 {
		return nil, nil
	}
	ids := idsOf(convs, func(c importConv) uuid.UUID { return c.ID })
	found, err := s.client.Conversation.Query().
		Where(conversation.IDIn(ids...), conversation.UserID(v.UserID)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	if len(found) == 0 {
		return nil, nil
	}
	byID := make(map[uuid.UUID]*ent.Conversation, len(found))
	for _, c := range found {
		byID[c.ID] = c
	}
	out := make([]*ent.Conversation, len(convs))
	for i, c := range convs {
		conv := byID[c.ID]
		if conv == nil || conv.Status == conversation.StatusDELETED {
			return nil, domain.NotFound("conversation")
		}
		if len(c.Messages) > 0 {
			ok, err := s.client.Message.Query().
				Where(message.ID(c.Messages[0].ID), message.ConversationID(c.ID)).
				Exist(ctx)
			if err != nil {
				return nil, store.DomainError(err, "message")
			}
			if !ok {
				return nil, mismatch
			}
		}
		out[i] = conv
	}
	return out, nil
}
