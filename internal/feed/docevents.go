package feed

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/docwatch"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Limits of a SOURCES_CHANGED event (docs/API.md, "Document-change
// events").
const (
	// MaxChangedAttemptIDs is the most attempt ids one SOURCES_CHANGED
	// event lists; ChangedAttempts counts them all.
	MaxChangedAttemptIDs = 50
	// maxManyDocuments is the most documents a "many changed" broadcast
	// re-checks, the most recently updated first.
	maxManyDocuments = 1000
	// maxCitingAttempts is the most citing attempts one broadcast reads
	// for one subscription; past it, conversations beyond are not told.
	maxCitingAttempts = 10000
)

// sourcesChange is one conversation's share of a document-change
// broadcast: the attempts of it that cite a changed document the
// subscriber may read, at most MaxChangedAttemptIDs of them, and how many
// there are.
type sourcesChange struct {
	conversation uuid.UUID
	attempts     []uuid.UUID
	count        int
}

// citingAttempts returns, per conversation in scope, the attempts that
// cite a document of b the viewer in ctx may read now. The scope is one
// conversation (conv), or, with conv nil, the viewer's own conversations
// that are not temporary. Every branch counts, and attempts of deleted
// conversations never do (the privacy rules leave them out). It costs two
// privacy-filtered queries: the readable documents, then the attempts.
func (s *Service) citingAttempts(ctx context.Context, b docwatch.Batch, conv *uuid.UUID) ([]sourcesChange, error) {
	dq := s.client.Document.Query()
	if b.Many {
		dq.Where(document.UpdatedAtGTE(b.Since)).Order(ent.Desc(document.FieldUpdatedAt)).Limit(maxManyDocuments)
	} else {
		dq.Where(document.IDIn(b.Docs...))
	}
	docs, err := dq.IDs(ctx)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	q := s.client.Attempt.Query().Where(attempt.HasSourcesWith(source.DocumentIDIn(docs...)))
	if conv != nil {
		q.Where(attempt.ConversationID(*conv))
	} else {
		v := viewer.FromContext(ctx)
		if v == nil {
			return nil, nil
		}
		q.Where(attempt.OwnerID(v.UserID), attempt.HasConversationWith(authz.NotTemporary()))
	}
	rows, err := q.Order(ent.Asc(attempt.FieldConversationID), ent.Asc(attempt.FieldID)).
		Limit(maxCitingAttempts).
		Select(attempt.FieldID, attempt.FieldConversationID).
		All(ctx)
	if err != nil {
		return nil, err
	}
	var out []sourcesChange
	for _, a := range rows {
		if n := len(out); n == 0 || out[n-1].conversation != a.ConversationID {
			out = append(out, sourcesChange{conversation: a.ConversationID})
		}
		c := &out[len(out)-1]
		c.count++
		if len(c.attempts) < MaxChangedAttemptIDs {
			c.attempts = append(c.attempts, a.ID)
		}
	}
	return out, nil
}

// docFollow follows one tenant's document-change broadcasts for a stream.
// A subscription that ends (lagged, forgotten) is renewed once per end; a
// broadcast missed meanwhile is not replayed (clients see staleness on
// their next read).
type docFollow struct {
	s      *Service
	tenant string
	sub    *broker.Subscription // nil: not following
}

// followDocuments subscribes to tenant's document changes. When the broker
// refuses, the stream goes on without SOURCES_CHANGED events.
func (s *Service) followDocuments(ctx context.Context, tenant string) *docFollow {
	f := &docFollow{s: s, tenant: tenant}
	f.subscribe(ctx)
	return f
}

func (f *docFollow) subscribe(ctx context.Context) {
	sub, err := f.s.broker.Subscribe(ctx, docwatch.Topic(f.tenant))
	if err != nil {
		if !errors.Is(err, broker.ErrClosed) && ctx.Err() == nil {
			f.s.log.WarnContext(ctx, "document changes not followed; this stream sends no SOURCES_CHANGED", "err", err)
		}
		f.sub = nil
		return
	}
	f.sub = sub
}

// C is the subscription's channel; nil (never ready) when not following.
func (f *docFollow) C() <-chan broker.Event {
	if f.sub == nil {
		return nil
	}
	return f.sub.C()
}

// batch decodes ev, or, when the channel closed (ok false), renews the
// subscription; it reports whether ev is a broadcast of the tenant.
func (f *docFollow) batch(ctx context.Context, ev broker.Event, ok bool) (docwatch.Batch, bool) {
	if !ok {
		ended := f.sub
		f.sub = nil
		if ctx.Err() == nil && !errors.Is(ended.Err(), broker.ErrClosed) {
			f.subscribe(ctx)
		}
		return docwatch.Batch{}, false
	}
	return docwatch.Decode(ev, f.tenant)
}

func (f *docFollow) close() {
	if f.sub != nil {
		f.sub.Close()
		f.sub = nil
	}
}
