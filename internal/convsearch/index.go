package convsearch

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/hook"
	"github.com/ragchat/ragchat/ent/privacy"
	"github.com/ragchat/ragchat/ent/searchentry"
	"github.com/ragchat/ragchat/internal/prepared"
	"github.com/ragchat/ragchat/internal/textsearch"
)

// OwnerTerm is the term every entry carries for its owner, so that the
// index lookup itself is scoped to one user of one tenant. Query text
// never produces it: Query splits at ':'.
func OwnerTerm(tenantID, userID string) string { return "u:" + tenantID + ":" + userID }

// TenantTerm is the term every entry carries for its tenant, which scopes
// an admin's search the same way.
func TenantTerm(tenantID string) string { return "t:" + tenantID }

// The tiers of Rank: a title hit ranks above every message hit.
const (
	tierTitle   = 2
	tierMessage = 1
	tierScale   = int64(1e16) // above any Unix time in microseconds
)

// Rank is an entry's place in the order of hits, best first: its kind's
// tier, then its time (newest first). A conversation's best entry is the
// one of highest rank.
func Rank(kind searchentry.Kind, at time.Time) int64 {
	tier := int64(tierMessage)
	if kind == searchentry.KindTITLE {
		tier = tierTitle
	}
	return tier*tierScale + at.UnixMicro()
}

// Encode returns the stored form of text's terms plus the owner's and the
// tenant's terms for the given dialect: a tsvector's text on PostgreSQL,
// FTS5 column text on SQLite.
func Encode(dialectName, tenantID, userID, text string) textsearch.Indexed {
	tokens := append(textsearch.Tokens(text), OwnerTerm(tenantID, userID), TenantTerm(tenantID))
	if dialectName == dialect.Postgres {
		return textsearch.Indexed(textsearch.TSVector(tokens))
	}
	return textsearch.Indexed(textsearch.FTS5Document(tokens))
}

// Install adds the hooks that keep the search index (ent/schema.SearchEntry)
// in step with c's writes: an entry for every message created (message
// content is immutable) and one TITLE entry per conversation, written
// when it is created and rewritten when it is retitled. Each runs after
// the write it mirrors, in the writer's transaction when it has one, so
// an entry commits with its row (a write outside a transaction commits
// its row first: writeMessageEntry). The store calls it once where it
// opens the client.
//
// The entry is written with the privacy decision Allow: the policy has
// just admitted the write it mirrors (with the tenant and owner it
// carries), and no viewer can write entries any other way.
func Install(c *ent.Client, dialectName string) {
	c.Message.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.MessageFunc(func(ctx context.Context, m *ent.MessageMutation) (ent.Value, error) {
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return v, err
			}
			msg, ok := v.(*ent.Message)
			if !ok {
				return v, nil
			}
			return v, writeMessageEntry(indexing(ctx), messageEntry(m.Client(), dialectName, msg))
		})
	}, ent.OpCreate))
	c.Conversation.Use(hook.On(func(next ent.Mutator) ent.Mutator {
		return hook.ConversationFunc(func(ctx context.Context, m *ent.ConversationMutation) (ent.Value, error) {
			if _, ok := m.Title(); !ok {
				return next.Mutate(ctx, m)
			}
			var ids []uuid.UUID
			if m.Op().Is(ent.OpUpdate) {
				var err error
				if ids, err = m.IDs(ctx); err != nil {
					return nil, err
				}
			}
			v, err := next.Mutate(ctx, m)
			if err != nil {
				return v, err
			}
			if conv, ok := v.(*ent.Conversation); ok {
				return v, writeTitle(indexing(ctx), m.Client(), dialectName, conv, m.Op().Is(ent.OpCreate))
			}
			convs, err := m.Client().Conversation.Query().Where(conversation.IDIn(ids...)).All(indexing(ctx))
			if err != nil {
				return nil, err
			}
			for _, conv := range convs {
				if err := writeTitle(indexing(ctx), m.Client(), dialectName, conv, false); err != nil {
					return nil, err
				}
			}
			return v, nil
		})
	}, ent.OpCreate|ent.OpUpdate|ent.OpUpdateOne))
}

// indexing is ctx with the privacy decision of the index's own writes.
func indexing(ctx context.Context) context.Context {
	return privacy.DecisionContext(ctx, privacy.Allow)
}

// messageEntry is the create of msg's MESSAGE entry.
func messageEntry(c *ent.Client, dialectName string, msg *ent.Message) *ent.SearchEntryCreate {
	return c.SearchEntry.Create().
		SetTenantID(msg.TenantID).SetOwnerID(msg.OwnerID).SetConversationID(msg.ConversationID).
		SetMessageID(msg.ID).SetKind(searchentry.KindMESSAGE).
		SetAt(msg.CreatedAt).SetRank(Rank(searchentry.KindMESSAGE, msg.CreatedAt)).
		SetSearchTokens(Encode(dialectName, msg.TenantID, msg.OwnerID, msg.Content))
}

// IndexFirstTitle writes the TITLE entry of conv, which had no title and
// so no entry, for the title set by a statement that bypasses Ent's hooks
// (the ask's sequence bump in internal/chat), through c (the writer's
// transaction). With a prepared.Batch in ctx the entry is added to it, to
// be written by the caller's statement.
func IndexFirstTitle(ctx context.Context, c *ent.Client, dialectName string, conv *ent.Conversation) error {
	at := time.Now()
	return write(indexing(ctx), titleEntry(c, conv, Encode(dialectName, conv.TenantID, conv.UserID, conv.Title), at))
}

// write sends create, or adds its spec to the prepared.Batch ctx carries
// (the row it mirrors is being prepared, not yet written).
func write(ctx context.Context, create *ent.SearchEntryCreate) error {
	batch := prepared.From(ctx)
	if batch == nil {
		return create.Exec(ctx)
	}
	_, spec, err := create.Prepare(ctx)
	if err != nil {
		return err
	}
	batch.Add(spec)
	return nil
}

// writeMessageEntry writes a message's entry as write does, except that
// outside a prepared batch an entry that already exists is kept: a
// message written outside a transaction is visible before its entry, and
// the backfill of a replica starting meanwhile (Backfill, ON CONFLICT DO
// NOTHING) may write the same entry first. Entries of one message are
// equal, since message content never changes. A batch runs in the
// writer's transaction, where no one sees the message before its entry.
func writeMessageEntry(ctx context.Context, create *ent.SearchEntryCreate) error {
	if prepared.From(ctx) != nil {
		return write(ctx, create)
	}
	err := create.OnConflictColumns(searchentry.FieldMessageID).DoNothing().Exec(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		// Ent's DO NOTHING returns no row: the entry was there.
		return nil
	}
	return err
}

// writeTitle writes conv's TITLE entry: a new one for a conversation just
// created (none for an empty title), else the existing one rewritten (or
// written, when there is none yet).
func writeTitle(ctx context.Context, c *ent.Client, dialectName string, conv *ent.Conversation, created bool) error {
	if created && conv.Title == "" {
		return nil
	}
	at := time.Now()
	if created {
		at = conv.CreatedAt
	}
	tokens := Encode(dialectName, conv.TenantID, conv.UserID, conv.Title)
	if !created {
		n, err := c.SearchEntry.Update().
			Where(searchentry.ConversationID(conv.ID), searchentry.KindEQ(searchentry.KindTITLE)).
			SetSearchTokens(tokens).SetAt(at).SetRank(Rank(searchentry.KindTITLE, at)).
			Save(ctx)
		if err != nil || n > 0 {
			return err
		}
	}
	return titleEntry(c, conv, tokens, at).Exec(ctx)
}

// titleEntry is the create of conv's TITLE entry with tokens, dated at.
func titleEntry(c *ent.Client, conv *ent.Conversation, tokens textsearch.Indexed, at time.Time) *ent.SearchEntryCreate {
	return c.SearchEntry.Create().
		SetTenantID(conv.TenantID).SetOwnerID(conv.UserID).SetConversationID(conv.ID).
		SetKind(searchentry.KindTITLE).SetAt(at).SetRank(Rank(searchentry.KindTITLE, at)).
		SetSearchTokens(tokens)
}
