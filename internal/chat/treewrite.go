package chat

import (
	"context"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// treeRows are the rows a fork or an import writes into a new
// conversation: its messages, the attempts of its answers and their
// sources, built with the ids chosen up front so that each row names its
// parent, its attempt or its question without a read back.
type treeRows struct {
	// first are the messages without an attempt (questions, and answers
	// copied without one); answers the answers that name their attempt.
	first, answers []*ent.MessageCreate
	attempts       []*ent.AttemptCreate
	sources        []*ent.SourceCreate
}

// add adds message m; a is the attempt m answers (nil for a question).
func (r *treeRows) add(m *ent.MessageCreate, a *ent.AttemptCreate) {
	if a == nil {
		r.first = append(r.first, m)
		return
	}
	r.attempts = append(r.attempts, a)
	r.answers = append(r.answers, m)
}

// write inserts the rows in tx: the messages without an attempt first,
// then the attempts that answer them, then the answers that name the
// attempts, then the sources, so that each statement only names rows
// already written.
func (r *treeRows) write(ctx context.Context, tx *ent.Tx) error {
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
	if len(r.sources) > 0 {
		if err := tx.Source.CreateBulk(r.sources...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// newConversation starts the create of a conversation of v in tx with the
// expiries of st counted from now.
func (e *Engine) newConversation(tx *ent.Tx, v *viewer.Viewer, st domain.TenantSettings) *ent.ConversationCreate {
	now := e.now()
	abs := now.Add(st.ConversationMaxAge.Duration)
	return tx.Conversation.Create().
		SetUserID(v.UserID).
		SetExpiresAt(minTime(now.Add(st.ConversationIdleTTL.Duration), abs)).
		SetAbsoluteExpiresAt(abs)
}
