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
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/llm/offline"
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
		svc := knowledge.NewService(e.db.Client, offline.New(offline.Options{}), tokens.Default(), knowledge.Options{Changes: e.eng})
		runbook := e.db.Client.Document.Query().Where(document.VisibilityEQ(document.VisibilityRESTRICTED)).OnlyX(as(admin))
		olgaWithoutOps := &viewer.Viewer{TenantID: demo.TenantID, UserID: olga.UserID, Roles: olga.Roles}
		conv := e.conversation(t, olga)
		e.model.hold()
		defer e.model.release()
		res, err := e.eng.Ask(as(olga), conv.ID, "k", "上传服务的内部限流阈值是多少？")
		require.NoError(t, err)

		check := func(name string, v *viewer.Viewer, wantRunbook bool) {
			t.Helper()
			ev := sourcesEvent(t, e, v, res.Attempt.ID)
			require.NotEmpty(t, ev.Sources, name)
			srcs := make([]*ent.Source, len(ev.Sources))
			for i, v := range ev.Sources {
				srcs[i] = v.Source
			}
			fresh, err := e.eng.SourcesOf(as(v), srcs)
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
