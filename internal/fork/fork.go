// Package fork copies the path from a conversation's root to one of its
// messages into a new conversation of the same owner (docs/ENGINE.md,
// "Forks"), with its answers' sources re-authorised for the owner now
// (internal/sourceauth). Its reads and its one write transaction go
// through the owner's Ent client; the owner's feed hears of the fork.
package fork

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/conversations"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/feed"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tenantsettings"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Notifier announces a new conversation on its owner's feed
// (*feed.Service).
type Notifier interface {
	ConversationChanged(ctx context.Context, conv *ent.Conversation, kind feed.ConversationEventKind, viewerKind feed.ViewerEventKind)
}

// Service forks conversations.
type Service struct {
	client *ent.Client
	feed   Notifier
	now    func() time.Time
}

// New returns a Service reading and writing through client
// (privacy-enforcing) and announcing forks on notify; now is the clock of
// the forks' expiries (nil: time.Now).
func New(client *ent.Client, notify Notifier, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{client: client, feed: notify, now: now}
}

// Fork copies the path from the root to messageID into a new
// conversation of the same owner; clientRequestID (optional) makes it
// idempotent (docs/ENGINE.md, "Forks").
//
// Only the owner may fork: anyone else (support agents and admins
// included), a DELETED conversation and an unknown id are the same
// NOT_FOUND. The fork has the source's title, title source, knowledge base
// and history strategy, a fresh expiry, and copies of the path's messages
// (same role and content, sequence numbers 1…n, parents chained, depths
// kept); its current leaf is the copy of messageID, and it records
// messageID as forked_from_message_id. Every copied answer gets a
// COMPLETED attempt with the original's answer, model and token counts,
// and its sources are snapshotted again for the owner now: a source whose
// chunk the owner can no longer read is copied without its chunk,
// document, snippet and title, so it stays unavailable (its label keeps
// the answer's citations aligned). Everything is written in one
// transaction; the owner's feed gets CONVERSATION_CREATED.
//
// A replayed clientRequestID returns the fork it made; the same key for
// another message is IDEMPOTENCY_MISMATCH, and a key whose fork was
// deleted is NOT_FOUND.
func (s *Service) Fork(ctx context.Context, messageID uuid.UUID, clientRequestID string) (*ent.Conversation, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	var key *string
	if clientRequestID != "" {
		k, err := domain.CheckClientID("clientRequestId", clientRequestID)
		if err != nil {
			return nil, err
		}
		key = &k
		if conv, err := s.replay(ctx, v, k, messageID); conv != nil || err != nil {
			return conv, err
		}
	}
	src, err := s.loadSource(ctx, v, messageID)
	if err != nil {
		return nil, err
	}
	fork, err := s.write(ctx, v, src, key)
	if err != nil {
		if key != nil && ent.IsConstraintError(err) {
			// A concurrent fork with the same key won.
			if conv, rerr := s.replay(ctx, v, *key, messageID); conv != nil || rerr != nil {
				return conv, rerr
			}
			// The key's fork exists but is hidden: it was deleted.
			return nil, domain.NotFound("conversation")
		}
		return nil, store.DomainError(err, "conversation")
	}
	s.feed.ConversationChanged(ctx, fork, feed.ConversationUpdated, feed.ViewerConversationCreated)
	return fork, nil
}

// replay returns the fork the viewer made with key, nil when there is
// none, and IDEMPOTENCY_MISMATCH when key made a fork of another message.
func (s *Service) replay(ctx context.Context, v *viewer.Viewer, key string, messageID uuid.UUID) (*ent.Conversation, error) {
	prev, err := store.Optional(s.client.Conversation.Query().
		Where(conversation.UserID(v.UserID), conversation.ForkRequestID(key)).
		Only(ctx))
	if prev == nil {
		return nil, store.DomainError(err, "conversation")
	}
	if prev.ForkedFromMessageID == nil || *prev.ForkedFromMessageID != messageID {
		return nil, domain.Errorf(domain.CodeIdempotencyMismatch,
			"clientRequestId %q was already used to fork another message", key)
	}
	return prev, nil
}

// forkSource is what a fork copies: the source conversation, the path
// root…message (ascending depth), the attempts of its answers (by id) and
// their sources (by attempt), with which chunks the owner may read now.
type forkSource struct {
	conv     *ent.Conversation
	path     []*ent.Message
	attempts map[uuid.UUID]*ent.Attempt
	sources  map[uuid.UUID][]*ent.Source
	readable map[uuid.UUID]bool
}

// loadSource reads what a fork of messageID copies, as the viewer and
// only among the viewer's own rows: a message of someone else's, of a
// DELETED conversation, or unknown is NOT_FOUND("message").
func (s *Service) loadSource(ctx context.Context, v *viewer.Viewer, messageID uuid.UUID) (*forkSource, error) {
	notFound := domain.NotFound("message")
	m, err := s.client.Message.Query().
		Where(message.ID(messageID), message.OwnerID(v.UserID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, notFound
	}
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	conv, err := s.client.Conversation.Query().
		Where(conversation.ID(m.ConversationID), conversation.UserID(v.UserID)).
		Only(ctx)
	if ent.IsNotFound(err) || (err == nil && conv.Status == conversation.StatusDELETED) {
		return nil, notFound
	}
	if err != nil {
		return nil, store.DomainError(err, "conversation")
	}
	path, err := s.client.Message.Query().
		Where(message.ConversationID(conv.ID), message.OwnerID(v.UserID), tree.Path(messageID, 0)).
		Order(ent.Asc(message.FieldDepth)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "message")
	}
	if len(path) == 0 || path[len(path)-1].ID != messageID {
		return nil, notFound
	}
	src := &forkSource{conv: conv, path: path, attempts: map[uuid.UUID]*ent.Attempt{}, sources: map[uuid.UUID][]*ent.Source{}}
	var attIDs []uuid.UUID
	for _, pm := range path {
		if pm.Role == message.RoleASSISTANT && pm.AttemptID != nil {
			attIDs = append(attIDs, *pm.AttemptID)
		}
	}
	if len(attIDs) == 0 {
		src.readable = map[uuid.UUID]bool{}
		return src, nil
	}
	atts, err := s.client.Attempt.Query().Where(attempt.IDIn(attIDs...)).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "attempt")
	}
	for _, a := range atts {
		src.attempts[a.ID] = a
	}
	srcs, err := s.client.Source.Query().
		Where(source.AttemptIDIn(attIDs...)).
		Order(ent.Asc(source.FieldAttemptID), ent.Asc(source.FieldRank)).
		All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "source")
	}
	var chunks []uuid.UUID
	for _, sr := range srcs {
		src.sources[sr.AttemptID] = append(src.sources[sr.AttemptID], sr)
		if sr.ChunkID != nil {
			chunks = append(chunks, *sr.ChunkID)
		}
	}
	// The owner's reading rights now, not the ones the answer had.
	if src.readable, err = sourceauth.ReadableChunks(ctx, s.client, chunks); err != nil {
		return nil, store.DomainError(err, "source")
	}
	return src, nil
}

// write writes the fork of src in one transaction and returns the new
// conversation.
func (s *Service) write(ctx context.Context, v *viewer.Viewer, src *forkSource, key *string) (*ent.Conversation, error) {
	st, err := tenantsettings.Effective(ctx, s.client)
	if err != nil {
		return nil, err
	}
	// Ids are chosen up front, so that each row names its parent, its
	// attempt or its question, and the conversation its leaf, without a
	// read back.
	copies := make(map[uuid.UUID]uuid.UUID, len(src.path))
	for _, m := range src.path {
		copies[m.ID] = uuid.New()
	}
	leaf := copies[src.path[len(src.path)-1].ID]
	var fork *ent.Conversation
	err = store.WithTx(ctx, s.client, func(tx *ent.Tx) error {
		var err error
		fork, err = conversations.Create(tx.Conversation, v, st, s.now()).
			SetKnowledgeBaseID(src.conv.KnowledgeBaseID).
			SetTitle(src.conv.Title).
			SetTitleSource(src.conv.TitleSource).
			SetNillableHistoryStrategy(src.conv.HistoryStrategy).
			SetLastSequenceNo(int64(len(src.path))).
			SetCurrentLeafID(leaf).
			SetForkedFromMessageID(src.path[len(src.path)-1].ID).
			SetNillableForkRequestID(key).
			Save(ctx)
		if err != nil {
			return err
		}
		var rows conversations.TreeRows
		for i, m := range src.path {
			c := tx.Message.Create().
				SetID(copies[m.ID]).
				SetConversationID(fork.ID).SetOwnerID(v.UserID).
				SetDepth(m.Depth).
				SetSequenceNo(int64(i + 1)).
				SetRole(m.Role).
				SetContent(m.Content).
				SetNillableStandaloneQuestion(m.StandaloneQuestion).
				SetNillableModel(m.Model).
				SetNillablePromptTokens(m.PromptTokens).
				SetNillableCompletionTokens(m.CompletionTokens).
				SetNillableTraceID(m.TraceID).
				SetNillablePathSummary(m.PathSummary).SetPathSummaryVersion(m.PathSummaryVersion).
				SetCreatedAt(m.CreatedAt)
			if m.ParentID != nil {
				parent := copies[*m.ParentID]
				c.SetParentID(parent)
			}
			a := (*ent.Attempt)(nil)
			if m.AttemptID != nil {
				a = src.attempts[*m.AttemptID]
			}
			if m.Role != message.RoleASSISTANT || a == nil || m.ParentID == nil {
				rows.Add(c, nil)
				continue
			}
			attID := uuid.New()
			c.SetAttemptID(attID)
			rows.Add(c, tx.Attempt.Create().
				SetID(attID).
				SetConversationID(fork.ID).SetOwnerID(v.UserID).
				SetUserMessageID(copies[*m.ParentID]).
				SetStatus(attempt.StatusCOMPLETED).
				SetOriginalQuestion(a.OriginalQuestion).
				SetNillableStandaloneQuestion(a.StandaloneQuestion).
				SetRequiresHistory(a.RequiresHistory).
				SetAnswer(a.Answer).
				SetCheckpointSeq(a.CheckpointSeq).
				SetRefused(a.Refused).
				SetNillableRefusalReason(a.RefusalReason).
				SetNillableModel(a.Model).
				SetPromptTokens(a.PromptTokens).
				SetCompletionTokens(a.CompletionTokens).
				SetTotalTokens(a.TotalTokens).
				SetTraceID(a.TraceID).
				SetStartedAt(a.StartedAt).
				SetNillableFirstTokenAt(a.FirstTokenAt).
				SetNillableCompletedAt(a.CompletedAt).
				SetCreatedAt(a.CreatedAt))
			for _, sr := range src.sources[a.ID] {
				sc := tx.Source.Create().
					SetAttemptID(attID).SetOwnerID(v.UserID).
					SetLabel(sr.Label).SetRank(sr.Rank).SetScore(sr.Score).
					SetDocumentVersion(sr.DocumentVersion).SetCited(sr.Cited)
				if sr.ChunkID != nil && src.readable[*sr.ChunkID] {
					sc.SetChunkID(*sr.ChunkID).SetNillableDocumentID(sr.DocumentID).
						SetSnippet(sr.Snippet).SetDocumentTitle(sr.DocumentTitle).
						SetNillableChunkHash(sr.ChunkHash)
				} else {
					// Unreadable now: the copy keeps its place, not its text.
					sc.SetSnippet("").SetDocumentTitle("")
				}
				rows.Sources = append(rows.Sources, sc)
			}
		}
		return rows.Write(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return fork.Unwrap(), nil
}
