package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent/knowledgebase"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// offlineKBName is the knowledge base the offline parts (throughput,
// stmts, context) search. A knowledge base is searched only with the
// embedding model it was ingested with, so it is ingested apart, by
// `ragchat ingest` with the offline model, after the fake model's parts.
const offlineKBName = "Offline"

// offlineVars turns a child's environment into one with the offline model
// streaming without pause: no OpenAI-compatible endpoint (the fake) and a
// negative RAGCHAT_OFFLINE_TOKEN_DELAY (0 would mean the default pace).
func offlineVars(vars []string) []string {
	var out []string
	for _, v := range vars {
		if !strings.HasPrefix(v, "OPENAI_") && !strings.HasPrefix(v, "RAGCHAT_OFFLINE_TOKEN_DELAY=") {
			out = append(out, v)
		}
	}
	return append(out, "RAGCHAT_OFFLINE_TOKEN_DELAY=-1ns")
}

// startOfflineServer ingests the offline knowledge base (once) and starts
// `ragchat serve` named name with the offline model at zero delay and
// extra environment.
func (f *benchFixture) startOfflineServer(ctx context.Context, name string, extra ...string) (*benchServer, error) {
	if f.offlineKB == uuid.Nil {
		if err := f.ingestOffline(ctx); err != nil {
			return nil, err
		}
	}
	return f.launch(ctx, name, append(offlineVars(f.vars(f.dataDir(name))), extra...))
}

// ingestOffline ingests the bench document into offlineKBName with the
// offline model's embeddings and remembers the knowledge base's id.
func (f *benchFixture) ingestOffline(ctx context.Context) error {
	doc := filepath.Join(f.dir, "bench.md")
	ingest := exec.CommandContext(ctx, f.server, "ingest", "--tenant", benchTenant, "--kb", offlineKBName, doc)
	ingest.Env = offlineVars(f.vars(f.dataDir("")))
	if out, err := ingest.CombinedOutput(); err != nil {
		return fmt.Errorf("ingest (offline model): %v\n%s", err, out)
	}
	db, err := store.Open(ctx, store.Config{DatabaseURL: f.dbURL, SQLitePath: filepath.Join(f.dir, "ragchat.db"), MaxOpenConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	sys := viewer.SystemJobContext(ctx, viewer.JobProvision)
	kb, err := db.Client.KnowledgeBase.Query().
		Where(knowledgebase.TenantID(benchTenant), knowledgebase.Name(offlineKBName)).Only(sys)
	if err != nil {
		return fmt.Errorf("the offline knowledge base: %w", err)
	}
	f.offlineKB = kb.ID
	return nil
}

// createConvIn creates a conversation searching kb (uuid.Nil: the tenant's
// first knowledge base).
func createConvIn(ctx context.Context, c *gqlclient.Client, kb uuid.UUID) (string, error) {
	if kb == uuid.Nil {
		return createConv(ctx, c)
	}
	r, err := c.Do(ctx, `mutation($kb: ID!) { createConversation(input: {knowledgeBaseId: $kb}) { id } }`, map[string]any{"kb": kb.String()})
	if err != nil {
		return "", err
	}
	var out struct{ CreateConversation struct{ ID string } }
	if err := r.Decode(&out); err != nil {
		return "", err
	}
	if out.CreateConversation.ID == "" {
		return "", fmt.Errorf("createConversation: %v", r.Err())
	}
	return out.CreateConversation.ID, nil
}

// openConv opens a WebSocket as c and creates a conversation searching kb
// (uuid.Nil: the tenant's first knowledge base) to ask and follow answers
// in; the caller closes the WebSocket.
func openConv(ctx context.Context, c *gqlclient.Client, kb uuid.UUID) (*gqlclient.WS, string, error) {
	ws, err := c.DialWS(ctx, gqlclient.WSOptions{})
	if err != nil {
		return nil, "", err
	}
	conv, err := createConvIn(ctx, c, kb)
	if err != nil {
		ws.Close()
		return nil, "", err
	}
	return ws, conv, nil
}

// followAnswer reads an attempt's stream to its end and returns the kind
// of its last event (COMPLETED or FAILED) and its number of DELTAs.
func followAnswer(ctx context.Context, ws *gqlclient.WS, attempt string) (string, int, error) {
	sub, err := ws.Subscribe(streamQuery, map[string]any{"a": attempt})
	if err != nil {
		return "", 0, err
	}
	last, deltas := "", 0
	for {
		r, err := sub.Next(ctx)
		if err != nil {
			if last != "" && isEOF(err) {
				return last, deltas, nil
			}
			if isEOF(err) {
				return "", deltas, fmt.Errorf("attempt %s: the stream ended without an event", attempt)
			}
			return "", deltas, err
		}
		if len(r.Errors) > 0 {
			return "", deltas, r.Err()
		}
		var e struct{ AttemptEvents struct{ Kind string } }
		if err := r.Decode(&e); err != nil {
			return "", deltas, err
		}
		last = e.AttemptEvents.Kind
		if last == "DELTA" {
			deltas++
		}
	}
}

// askAndFollow asks q in conv and follows the answer to its end.
func askAndFollow(ctx context.Context, c *gqlclient.Client, ws *gqlclient.WS, conv, q string) (string, int, error) {
	attempt, err := askQ(ctx, c, conv, uuid.NewString(), q)
	if err != nil {
		return "", 0, err
	}
	if attempt == "" {
		return "", 0, fmt.Errorf("ask in %s returned no attempt", conv)
	}
	return followAnswer(ctx, ws, attempt)
}

// isEOF reports the normal end of a subscription.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }
