package conversations

import (
	"context"

	"github.com/ragchat/ragchat/ent"
)

// TreeRows are the rows a fork or an import writes into a new
// conversation: its messages, the attempts of its answers and their
// sources, built with the ids chosen up front so that each row names its
// parent, its attempt or its question without a read back.
type TreeRows struct {
	// first are the messages without an attempt (questions, and answers
	// copied without one); answers the answers that name their attempt.
	first, answers []*ent.MessageCreate
	attempts       []*ent.AttemptCreate
	// Sources are the answers' sources, written last.
	Sources []*ent.SourceCreate
}

// Add adds message m; a is the attempt m answers (nil for a question).
func (r *TreeRows) Add(m *ent.MessageCreate, a *ent.AttemptCreate) {
	if a == nil {
		r.first = append(r.first, m)
		return
	}
	r.attempts = append(r.attempts, a)
	r.answers = append(r.answers, m)
}

// Write inserts the rows in tx: the messages without an attempt first,
// then the attempts that answer them, then the answers that name the
// attempts, then the sources, so that each statement only names rows
// already written.
func (r *TreeRows) Write(ctx context.Context, tx *ent.Tx) error {
	if len(r.first) > 0 {
		if err := tx.Message.CreateBulk(r.first...).Exec(ctx); err != nil {
			return err
		}
	}
	if len(r.attempts) > 0 {
		if err := tx.Attempt.CreateBulk(r.attempts...).Exec(ctx); err != nil {
			return err
		}
		if err := tx.Message.CreateBulk(r.answers...).Exec(ctx); err != nil {
			return err
		}
	}
	if len(r.Sources) > 0 {
		if err := tx.Source.CreateBulk(r.Sources...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
