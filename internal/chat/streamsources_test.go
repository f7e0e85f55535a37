package chat_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/sourceauth"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/tokens"
	"github.com/ragchat/ragchat/internal/viewer"
)

// sourcesEvent subscribes as v and returns the stream's SOURCES event.
func sourcesEvent(t *testing.T, e *env, v *viewer.Viewer, attemptID uuid.UUID) chat.AttemptEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(as(v), 30*time.Second)
	defer cancel()
	ch, err := e.eng.SubscribeAttempt(ctx, attemptID, 0)
	require.NoError(t, err)
	for ev := range ch {
		if ev.Kind == chat.EventSources {
			cancel()
			for range ch {
			}
			return ev
		}
	}
	t.Fatal("no SOURCES event")
	return chat.AttemptEvent{}
}

// TestLiveSourcesAreReauthorisedForEachSubscriber: the SOURCES event of a
// running answer shows each subscriber what it may read when the event is
// delivered, exactly as SourcesOf (what Attempt.sources uses) shows it:
// the asker sees every source while nothing changed; the same user with a
// token without the group that opened the restricted runbook does not see
// it, nor does the asker once the runbook's access list no longer names
// the group; a curator sees everything. The asker's own stream needs no
// statement for it while nothing changed (see TestStatementsPerAsk).
func TestLiveSourcesAreReauthorisedForEachSubscriber(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		svc := knowledge.NewService(e.db.Client, offline.New(offline.Options{}), tokens.Default(), knowledge.Options{Changes: e.access})
		runbook := e.db.Client.Document.Query().Where(document.VisibilityEQ(document.VisibilityRESTRICTED)).OnlyX(as(admin))
		olgaWithoutOps := &viewer.Viewer{TenantID: demo.TenantID, UserID: olga.UserID, Roles: olga.Roles}
		conv := e.conversation(t, olga)
		e.model.hold()
		defer e.model.release()
		res, err := e.eng.Ask(as(olga), chat.AskInput{ConversationID: conv.ID, ClientMessageID: "k", Question: "上传服务的内部限流阈值是多少？"})
		require.NoError(t, err)

		check := func(name string, v *viewer.Viewer, wantRunbook bool) {
			t.Helper()
			ev := sourcesEvent(t, e, v, res.Attempt.ID)
			require.NotEmpty(t, ev.Sources, name)
			srcs := make([]*ent.Source, len(ev.Sources))
			for i, v := range ev.Sources {
				srcs[i] = v.Source
			}
			fresh, err := sourceauth.Of(as(v), e.db.Client, srcs)
			require.NoError(t, err)
			sawRunbook := false
			for i, got := range ev.Sources {
				assert.Equal(t, fresh[i].Available, got.Available, "%s: source %s as a fresh check shows it", name, got.Source.Label)
				if *got.Source.DocumentID == runbook.ID {
					sawRunbook = sawRunbook || got.Available
				}
			}
			assert.Equal(t, wantRunbook, sawRunbook, "%s: the restricted runbook is shown", name)
		}
		check("the asker", olga, true)
		check("the asker without the ops group", olgaWithoutOps, false)
		check("a curator", admin, true)
		_, err = svc.SetACL(as(admin), runbook.ID, knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{"sre"}})
		require.NoError(t, err)
		check("the asker after the runbook's list dropped ops", olga, false)
		check("a curator after the change", admin, true)
	})
}

// TestLiveSourcesAfterTheRunNeedNoQuery: a subscriber that handles an
// answer's SOURCES event only after the run has ended (it was scheduled
// late on a busy machine) is treated as one that handled it during the
// run: the asker's own view needs no statement while the access stamp
// holds, and anyone else's is checked with one. Before the run's evidence
// grant was kept with the finished row, the asker's late view cost a
// statement, and TestStatementsPerAsk counted 16 (PostgreSQL) or 19
// (SQLite) now and then.
func TestLiveSourcesAfterTheRunNeedNoQuery(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		e := newEnv(t, db)
		conv := e.conversation(t, alice)
		res := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		chat.WaitIdle(e.eng)
		srcs := e.db.Client.Source.Query().Where(source.AttemptID(res.attempt.ID)).AllX(as(alice))
		require.NotEmpty(t, srcs)
		aliceElsewhere := &viewer.Viewer{TenantID: alice.TenantID, UserID: alice.UserID, Roles: alice.Roles, Groups: []string{"other"}}
		for _, tc := range []struct {
			name  string
			v     *viewer.Viewer
			stmts int64
		}{
			{"the asker", alice, 0},
			{"the asker with other groups", aliceElsewhere, 1},
		} {
			n.Store(0)
			views, err := chat.LiveSources(as(tc.v), e.eng, res.attempt.ID, srcs)
			require.NoError(t, err, tc.name)
			require.Len(t, views, len(srcs), tc.name)
			for _, v := range views {
				assert.True(t, v.Available, "%s: %s is readable", tc.name, v.Source.Label)
			}
			assert.Equal(t, tc.stmts, n.Load(), "%s: statements", tc.name)
		}
	})
}
