package main_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/testdb"
)

// crashEnv is a provisioned database and a fake OpenAI-compatible model
// that answers slowly, so that a server can be killed mid-answer.
type crashEnv struct {
	dbURL string
	db    *sql.DB
	fake  *llmfake.Server
}

func newCrashEnv(t *testing.T) *crashEnv {
	t.Helper()
	fake := llmfake.New()
	t.Cleanup(fake.Close)
	fake.SetEmbeddingDims(1) // every chunk scores ±1: retrieval always finds evidence
	fake.SetReply(strings.Repeat("根据资料，单个文件最大 20MB [C1]。", 100))
	fake.SetChunkRunes(2)
	fake.SetChunkDelay(20 * time.Millisecond) // about 20 s for the whole answer
	c := &crashEnv{dbURL: testdb.PostgresURL(t), fake: fake}
	provision(t, c.env(t, t.TempDir()))
	db, err := sql.Open("postgres", c.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	c.db = db
	return c
}

// env is the environment of a server with data directory dir.
func (c *crashEnv) env(t *testing.T, dir string, extra ...string) []string {
	return baseEnv(t, c.dbURL, append([]string{
		"RAGCHAT_DATA_DIR=" + dir, "RAGCHAT_LOAD_DEMO=false",
		"OPENAI_BASE_URL=" + c.fake.URL, "OPENAI_API_KEY=test", "OPENAI_CHAT_MODEL=fake-chat",
	}, extra...)...)
}

// attempt reads an attempt's status, failure code and lease owner.
func (c *crashEnv) attempt(t *testing.T, id string) (status, code, owner string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var fc, lo sql.NullString
	if err := c.db.QueryRowContext(ctx, `SELECT status, failure_code, lease_owner FROM attempts WHERE id = $1`, id).Scan(&status, &fc, &lo); err != nil {
		t.Fatal(err)
	}
	return status, fc.String, lo.String
}

// askAndKill asks on p, waits until the answer is streaming (a checkpoint
// of its text is saved) and kills p with SIGKILL. It returns the attempt
// id and when the process died.
func (c *crashEnv) askAndKill(t *testing.T, p *process) (string, time.Time) {
	t.Helper()
	alice := p.client(t, "acme", "alice")
	conv := createConversation(t, alice)
	id := ask(t, alice, conv, "上传文件最大是多少？")
	deadline := time.Now().Add(time.Minute) // hang guard
	for {
		var seq int
		if err := c.db.QueryRow(`SELECT checkpoint_seq FROM attempts WHERE id = $1`, id).Scan(&seq); err != nil {
			t.Fatal(err)
		}
		if seq > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the answer never streamed\n%s", lastLines(p.stderr.String(), 40))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	return id, time.Now()
}

// TestRestartAfterKillReclaimsAttempts: an instance killed with SIGKILL
// mid-answer and started again (same data directory, hence the same
// persisted instance id) ends the attempt it left PENDING with
// FAILED(INTERRUPTED) before it accepts requests — not when the lease
// expires, which this test sets to ten minutes — and the conversation takes
// the next question at once.
func TestRestartAfterKillReclaimsAttempts(t *testing.T) {
	c := newCrashEnv(t)
	dir := t.TempDir()
	env := c.env(t, dir, "RAGCHAT_ATTEMPT_LEASE=10m")
	p := launch(t, c.dbURL, env)
	id, killed := c.askAndKill(t, p)
	status, _, owner := c.attempt(t, id)
	if status != "PENDING" || owner == "" {
		t.Fatalf("after kill -9: %s owned by %q, want PENDING with a lease", status, owner)
	}

	p = launch(t, c.dbURL, env) // returns once the server listens
	status, code, _ := c.attempt(t, id)
	t.Logf("crash to FAILED(INTERRUPTED) with a restart: %s", time.Since(killed).Round(10*time.Millisecond))
	if status != "FAILED" || code != "INTERRUPTED" {
		t.Fatalf("after the restart: %s %s, want FAILED INTERRUPTED\n%s", status, code, lastLines(p.stderr.String(), 40))
	}
	if !strings.Contains(p.stderr.String(), `"instance":"`+owner+`"`) || !strings.Contains(p.stderr.String(), "reclaimed the attempts of a previous run") {
		t.Errorf("the restart did not reclaim as instance %s:\n%s", owner, lastLines(p.stderr.String(), 40))
	}
	alice := p.client(t, "acme", "alice")
	var out struct {
		Attempt struct{ Conversation struct{ ID string } }
	}
	mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { conversation { id } } }`, map[string]any{"a": id}, &out)
	c.fake.SetChunkDelay(0)
	next := ask(t, alice, out.Attempt.Conversation.ID, "退款多久到账？")
	if s := waitDone(t, alice, next); s != "COMPLETED" {
		t.Fatalf("the next question ended %s", s)
	}
}

// TestKilledInstanceIsReapedByAnother measures how long an attempt of an
// instance killed with SIGKILL stays PENDING when it does not come back:
// another instance's reaper ends it FAILED(INTERRUPTED) once its lease
// (default 6 s) has expired, on its next pass (every 2 s). The time is
// logged (docs/ENGINE.md records it), not asserted: the machine may be busy.
func TestKilledInstanceIsReapedByAnother(t *testing.T) {
	c := newCrashEnv(t)
	a := launch(t, c.dbURL, c.env(t, t.TempDir()))
	launch(t, c.dbURL, c.env(t, t.TempDir())) // the survivor, with its reaper
	id, killed := c.askAndKill(t, a)
	deadline := killed.Add(2 * time.Minute) // hang guard
	for {
		status, code, _ := c.attempt(t, id)
		if status != "PENDING" {
			if status != "FAILED" || code != "INTERRUPTED" {
				t.Fatalf("the attempt ended %s %s, want FAILED INTERRUPTED", status, code)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the attempt of the killed instance was never reaped")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("crash to FAILED(INTERRUPTED): %s", time.Since(killed).Round(10*time.Millisecond))
}
