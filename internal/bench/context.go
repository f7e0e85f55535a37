package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// contextQuestion is the follow-up asked in the seeded conversations: it
// refers to the history, so the rewrite uses the window.
const contextQuestion = "And what happens when a file is larger than that?"

// benchContext measures the server's own context assembly (window,
// rewrite, authorised retrieval, budgeted prompt) in conversations of each
// length of o.contextRounds, seeded directly in the database as whole
// rounds (question, completed attempt with one source, answer) with a
// summary covering all but the last 8 rounds, as the summariser leaves
// them. In each, one warm-up ask and then o.contextAsks follow-ups go
// through the child server (offline model); the figure is the mean of
// ragchat_context_assembly_seconds over those asks, read from /metrics.
func benchContext(ctx context.Context, env *benchEnv, o benchOptions, w io.Writer) error {
	type row struct {
		rounds, asks int
		mean         time.Duration
	}
	var rows []row
	for _, rounds := range o.contextRounds {
		user := fmt.Sprintf("context-%d", rounds)
		conv, err := seedRounds(ctx, env.db, user, env.kb, rounds, 8)
		if err != nil {
			return fmt.Errorf("seed %d rounds: %w", rounds, err)
		}
		c := env.client(user)
		ws, err := c.DialWS(ctx, gqlclient.WSOptions{})
		if err != nil {
			return err
		}
		if _, _, err := askAndFollow(ctx, c, ws, conv.String(), contextQuestion); err != nil {
			ws.Close()
			return fmt.Errorf("warm-up in %d rounds: %w", rounds, err)
		}
		before, err := settledMetrics(ctx, env)
		if err != nil {
			ws.Close()
			return err
		}
		for range o.contextAsks {
			if _, _, err := askAndFollow(ctx, c, ws, conv.String(), contextQuestion); err != nil {
				ws.Close()
				return err
			}
		}
		ws.Close()
		after, err := scrapeMetrics(ctx, env.base+"/metrics")
		if err != nil {
			return err
		}
		n := after[metricContextTime+"_count"] - before[metricContextTime+"_count"]
		if int(n+0.5) != o.contextAsks {
			return fmt.Errorf("%s counted %.0f assemblies for %d asks (is it exported?)", metricContextTime, n, o.contextAsks)
		}
		sum := after[metricContextTime+"_sum"] - before[metricContextTime+"_sum"]
		mean := time.Duration(sum / n * float64(time.Second))
		env.results.context[rounds] = mean
		rows = append(rows, row{rounds, o.contextAsks, mean})
	}
	fmt.Fprintf(w, "### Context assembly, by conversation length\n\n")
	fmt.Fprintf(w, "The server's own time per context assembly (`%s`: history window with its sources re-authorised, rewrite, authorised retrieval, budgeted prompt; the answer's save of the rewrite left out), read from the child server's /metrics. Each conversation is seeded in the database with whole rounds (question, completed attempt with one source, answer) and a summary covering all but the last 8 rounds, then gets one warm-up ask and %d follow-ups over the API (offline model), each followed to its end, one after the other; each ask adds a round.\n\n", metricContextTime, o.contextAsks)
	fmt.Fprintln(w, "| rounds | asks | mean | × the shortest |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %d | %d | %s | %.2f |\n", r.rounds, r.asks, us(r.mean), float64(r.mean)/float64(rows[0].mean))
	}
	fmt.Fprintln(w)
	return nil
}

// seedRounds writes a conversation of rounds whole rounds owned by user,
// one path of its message tree (so that no backfill rewrites it first),
// searching kb, directly (as the provisioning job) in bulk: each round a
// question, a completed attempt citing one chunk of kb, and the answer;
// and a summary covering all but the last keep rounds.
func seedRounds(ctx context.Context, db *store.DB, user string, kb uuid.UUID, rounds, keep int) (uuid.UUID, error) {
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	ck, err := db.Client.Chunk.Query().Where(chunk.KnowledgeBaseID(kb)).First(sys)
	if err != nil {
		return uuid.Nil, fmt.Errorf("a chunk of the knowledge base: %w", err)
	}
	now := time.Now()
	covered := max(0, rounds-keep)
	conv, err := db.Client.Conversation.Create().
		SetTenantID(benchTenant).SetUserID(user).SetKnowledgeBaseID(kb).SetTitle(fmt.Sprintf("%d rounds", rounds)).
		SetLastSequenceNo(int64(2 * rounds)).
		SetSummary("The user asked how large an uploaded file can be; answered: 20 MB, larger files get HTTP 413.").
		SetSummaryMessageSequence(int64(2 * covered)).SetSummaryVersion(covered / 4).
		SetExpiresAt(now.Add(24 * time.Hour)).SetAbsoluteExpiresAt(now.Add(48 * time.Hour)).
		Save(sys)
	if err != nil {
		return uuid.Nil, err
	}
	// The rounds are one path of the message tree, as asks write it: each
	// question follows the previous answer (depth 2i), each answer its
	// question (2i+1), and the last answer is the current leaf.
	const batch = 500
	var leaf *uuid.UUID
	for from := 0; from < rounds; from += batch {
		to := min(from+batch, rounds)
		at := func(seq int) time.Time { return now.Add(time.Duration(seq-2*rounds) * time.Second) }
		questions := make([]*ent.MessageCreate, 0, to-from)
		answerIDs := make([]uuid.UUID, 0, to-from)
		for i := from; i < to; i++ {
			qid, aid := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
			questions = append(questions, db.Client.Message.Create().SetID(qid).
				SetTenantID(benchTenant).SetOwnerID(user).SetConversationID(conv.ID).
				SetNillableParentID(leaf).SetDepth(2*i).
				SetSequenceNo(int64(2*i+1)).SetRole(message.RoleUSER).SetCreatedAt(at(2*i+1)).
				SetContent(fmt.Sprintf("Question %d: how large can an uploaded file be in section %d?", i, i%20)))
			answerIDs = append(answerIDs, aid)
			leaf = &answerIDs[len(answerIDs)-1]
		}
		qs, err := db.Client.Message.CreateBulk(questions...).Save(sys)
		if err != nil {
			return uuid.Nil, err
		}
		attempts := make([]*ent.AttemptCreate, len(qs))
		for k, q := range qs {
			attempts[k] = db.Client.Attempt.Create().
				SetTenantID(benchTenant).SetOwnerID(user).SetConversationID(conv.ID).
				SetUserMessageID(q.ID).SetClientRequestID(uuid.NewString()).SetOriginalQuestion(q.Content).
				SetStatus(attempt.StatusCOMPLETED).SetAnswer(benchAnswer(200)).
				SetStartedAt(q.CreatedAt).SetCompletedAt(q.CreatedAt)
		}
		as, err := db.Client.Attempt.CreateBulk(attempts...).Save(sys)
		if err != nil {
			return uuid.Nil, err
		}
		answers := make([]*ent.MessageCreate, len(as))
		sources := make([]*ent.SourceCreate, len(as))
		for k, a := range as {
			seq := 2*(from+k) + 2
			answers[k] = db.Client.Message.Create().SetID(answerIDs[k]).
				SetTenantID(benchTenant).SetOwnerID(user).SetConversationID(conv.ID).
				SetParentID(qs[k].ID).SetDepth(2*(from+k) + 1).
				SetSequenceNo(int64(seq)).SetRole(message.RoleASSISTANT).SetContent(a.Answer).
				SetAttemptID(a.ID).SetCreatedAt(at(seq))
			sources[k] = db.Client.Source.Create().
				SetTenantID(benchTenant).SetOwnerID(user).SetAttemptID(a.ID).
				SetChunkID(ck.ID).SetDocumentID(ck.DocumentID).SetLabel("C1").SetRank(1).SetScore(0.5).
				SetSnippet("Uploads are limited to 20 MB").SetDocumentTitle("Bench handbook").SetDocumentVersion(1).SetCited(true)
		}
		if err := db.Client.Message.CreateBulk(answers...).Exec(sys); err != nil {
			return uuid.Nil, err
		}
		if err := db.Client.Source.CreateBulk(sources...).Exec(sys); err != nil {
			return uuid.Nil, err
		}
	}
	if leaf != nil {
		if err := db.Client.Conversation.UpdateOneID(conv.ID).SetCurrentLeafID(*leaf).Exec(sys); err != nil {
			return uuid.Nil, err
		}
	}
	// Refresh the planner's statistics, as autovacuum does for tables
	// that grew.
	for _, table := range []string{"messages", "attempts", "sources"} {
		if _, err := db.SQL.ExecContext(ctx, "ANALYZE "+table); err != nil {
			return uuid.Nil, errors.Join(fmt.Errorf("analyze %s", table), err)
		}
	}
	return conv.ID, nil
}
