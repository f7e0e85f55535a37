package convsearch

import (
	"context"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/searchentry"
	"github.com/ragchat/ragchat/internal/viewer"
)

// DefaultBackfillBatch is the number of rows Backfill reads and writes per
// statement when batch is not positive.
const DefaultBackfillBatch = 500

// Backfill writes the search entries of the rows written before the index
// existed: a MESSAGE entry for every message that has none and a TITLE
// entry for every titled conversation that has none, batch rows per read
// and per write, and returns how many entries it wrote. It runs as the
// system job viewer.JobSearchBackfill and writes through Ent like the
// hooks. It is idempotent and safe on several replicas at once: a message
// entry another replica wrote first is skipped (message_id is unique), and
// a TITLE entry written twice at once is a duplicate with the same terms,
// which ranks and renames like one. It stops at the first error (the next
// run continues) or when ctx is done.
func Backfill(ctx context.Context, c *ent.Client, dialectName string, batch int) (int, error) {
	if batch <= 0 {
		batch = DefaultBackfillBatch
	}
	ctx = indexing(viewer.SystemJobContext(ctx, viewer.JobSearchBackfill))
	done, err := inBatches("messages", func(after uuid.UUID) ([]*ent.Message, error) {
		return c.Message.Query().
			Where(message.IDGT(after), func(s *entsql.Selector) {
				e := entsql.Table(searchentry.Table)
				s.Where(entsql.NotExists(entsql.Select(e.C(searchentry.FieldID)).From(e).
					Where(entsql.ColumnsEQ(e.C(searchentry.FieldMessageID), s.C(message.FieldID)))))
			}).
			Order(ent.Asc(message.FieldID)).Limit(batch).All(ctx)
	}, func(m *ent.Message) uuid.UUID { return m.ID }, func(msgs []*ent.Message) error {
		creates := make([]*ent.SearchEntryCreate, len(msgs))
		for i, m := range msgs {
			creates[i] = messageEntry(c, dialectName, m)
		}
		return c.SearchEntry.CreateBulk(creates...).OnConflictColumns(searchentry.FieldMessageID).DoNothing().Exec(ctx)
	})
	if err != nil {
		return done, err
	}
	titles, err := inBatches("conversations", func(after uuid.UUID) ([]*ent.Conversation, error) {
		return c.Conversation.Query().
			Where(conversation.IDGT(after), conversation.TitleNEQ(""), func(s *entsql.Selector) {
				e := entsql.Table(searchentry.Table)
				s.Where(entsql.NotExists(entsql.Select(e.C(searchentry.FieldID)).From(e).
					Where(entsql.And(
						entsql.ColumnsEQ(e.C(searchentry.FieldConversationID), s.C(conversation.FieldID)),
						entsql.EQ(e.C(searchentry.FieldKind), searchentry.KindTITLE),
					))))
			}).
			Order(ent.Asc(conversation.FieldID)).Limit(batch).All(ctx)
	}, func(conv *ent.Conversation) uuid.UUID { return conv.ID }, func(convs []*ent.Conversation) error {
		creates := make([]*ent.SearchEntryCreate, len(convs))
		for i, conv := range convs {
			creates[i] = titleEntry(c, conv, Encode(dialectName, conv.TenantID, conv.UserID, conv.Title), conv.UpdatedAt)
		}
		return c.SearchEntry.CreateBulk(creates...).Exec(ctx)
	})
	return done + titles, err
}

// inBatches walks the rows of kind in id order, a batch at a time: read
// returns the batch after the id given (uuid.Nil first), write writes its
// entries. It stops at the first empty batch or error and returns how many
// rows it wrote entries for.
func inBatches[T any](kind string, read func(after uuid.UUID) ([]T, error), id func(T) uuid.UUID, write func([]T) error) (int, error) {
	done := 0
	for after := uuid.Nil; ; {
		rows, err := read(after)
		if err != nil {
			return done, fmt.Errorf("search backfill: list %s: %w", kind, err)
		}
		if len(rows) == 0 {
			return done, nil
		}
		if err := write(rows); err != nil {
			return done, fmt.Errorf("search backfill: write the entries of %s: %w", kind, err)
		}
		done += len(rows)
		after = id(rows[len(rows)-1])
	}
}
