package knowledge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// opsQuestion is answered only by the restricted ops runbook.
const (
	opsQuestion = "上传服务告警值班电话是多少"
	opsPhone    = "010-5550-0199"
)

// mentions reports whether any hit's chunk contains s.
func mentions(hits []chat.Hit, s string) bool {
	for _, h := range hits {
		if strings.Contains(h.Chunk.Content, s) {
			return true
		}
	}
	return false
}

func TestSearchAppliesDocumentACLs(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb, docs := loadDemoDocs(t, e)
		runbook := docs["zh/ops-upload-runbook.md"]
		userGrant := e.ingest(t, kb.ID, knowledge.DocumentInput{
			Title: "Alice's notes", Content: "Alice's private parking spot is P-17.",
			ACL: knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Users: []string{"alice"}},
		})

		tests := []struct {
			name     string
			v        *viewer.Viewer
			runbook  bool
			userDocs bool
		}{
			{"member outside ops", alice, false, true},
			{"member of ops", olga, true, false},
			{"admin", carol, true, true},
			{"agent", ada, true, true},
			{"member with the same groups in another tenant", &viewer.Viewer{TenantID: "globex", UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}, Groups: []string{"ops"}}, false, false},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				// k far above the corpus size returns every readable chunk.
				all := e.ask(t, tc.v, kb.ID, opsQuestion, 150)
				ids := docIDs(all)
				assert.Equal(t, tc.runbook, ids[runbook.ID] > 0, "runbook chunks")
				assert.Equal(t, tc.runbook, mentions(all, opsPhone))
				assert.Equal(t, tc.userDocs, ids[userGrant.ID] > 0, "user-granted document")
				if tc.runbook {
					top := e.ask(t, tc.v, kb.ID, opsQuestion, 3)
					assert.Equal(t, runbook.ID, top[0].Document.ID)
					assert.True(t, mentions(top, opsPhone))
				}
				for _, h := range all {
					assert.Equal(t, h.Chunk.DocumentID, h.Document.ID, "each hit carries its own document")
				}
			})
		}
	})
}

func TestSetACLTakesEffectOnTheNextSearch(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb, docs := loadDemoDocs(t, e)
		runbook := docs["zh/ops-upload-runbook.md"]
		require.True(t, mentions(e.ask(t, olga, kb.ID, opsQuestion, 3), opsPhone))

		// Revoke ops, grant sales.
		doc, err := e.svc.SetACL(as(ada), runbook.ID, knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{"sales"}})
		require.NoError(t, err)
		assert.Equal(t, document.VisibilityRESTRICTED, doc.Visibility)
		assert.False(t, mentions(e.ask(t, olga, kb.ID, opsQuestion, 150), opsPhone), "ops lost access")
		assert.True(t, mentions(e.ask(t, alice, kb.ID, opsQuestion, 3), opsPhone), "sales gained access")

		// Open to the tenant, then restrict to one user.
		_, err = e.svc.SetACL(as(carol), runbook.ID, knowledge.ACL{Visibility: knowledge.VisibilityTenant})
		require.NoError(t, err)
		assert.True(t, mentions(e.ask(t, olga, kb.ID, opsQuestion, 3), opsPhone))
		grants, err := db.Client.DocumentGrant.Query().Where(documentgrant.DocumentID(runbook.ID)).Count(as(carol))
		require.NoError(t, err)
		assert.Zero(t, grants, "a TENANT document keeps no grants")
		_, err = e.svc.SetACL(as(carol), runbook.ID, knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Users: []string{"olga"}})
		require.NoError(t, err)
		assert.True(t, mentions(e.ask(t, olga, kb.ID, opsQuestion, 3), opsPhone))
		assert.False(t, mentions(e.ask(t, alice, kb.ID, opsQuestion, 150), opsPhone))

		// Setting the same list again changes and records nothing.
		_, err = e.svc.SetACL(as(carol), runbook.ID, knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Users: []string{"olga"}})
		require.NoError(t, err)

		events, err := db.Client.AuditEvent.Query().
			Where(auditevent.Action(knowledge.ActionACLChanged), auditevent.TargetID(runbook.ID.String())).
			Order(ent.Asc(auditevent.FieldAt), ent.Asc(auditevent.FieldID)).All(as(carol))
		require.NoError(t, err)
		require.Len(t, events, 3)
		assert.Equal(t, "ada", events[0].Actor)
		assert.Equal(t, knowledge.TargetDocument, events[0].TargetType)
		assert.Equal(t, map[string]string{
			"title": runbook.Title, "old_visibility": "RESTRICTED", "new_visibility": "RESTRICTED",
			"old_grants": "group:ops", "new_grants": "group:sales",
		}, events[0].Metadata)
		assert.Equal(t, "TENANT", events[1].Metadata["new_visibility"])
		assert.Equal(t, "user:olga", events[2].Metadata["new_grants"])

		t.Run("errors", func(t *testing.T) {
			_, err := e.svc.SetACL(as(alice), runbook.ID, knowledge.ACL{})
			requireCode(t, err, domain.CodeForbidden)
			_, err = e.svc.SetACL(as(erin), runbook.ID, knowledge.ACL{})
			requireCode(t, err, domain.CodeNotFound)
			_, err = e.svc.SetACL(as(carol), uuid.New(), knowledge.ACL{})
			requireCode(t, err, domain.CodeNotFound)
			_, err = e.svc.SetACL(as(carol), runbook.ID, knowledge.ACL{Visibility: knowledge.VisibilityRestricted})
			requireCode(t, err, domain.CodeBadUserInput)
		})
	})
}

func TestDeleteDocument(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, knowledge.Options{})
		kb, docs := loadDemoDocs(t, e)
		refunds := docs["en/refunds.md"]
		const q = "how long do bank card refunds take"
		hits := e.ask(t, alice, kb.ID, q, 3)
		require.Equal(t, refunds.ID, hits[0].Document.ID)

		// alice's answer cited the refunds chunk.
		src := citeChunk(t, db.Client, kb.ID, hits[0])

		_, err := e.svc.Ingest(as(alice), kb.ID, knowledge.DocumentInput{Title: "x", Content: "y"})
		requireCode(t, err, domain.CodeForbidden)
		requireCode(t, e.svc.DeleteDocument(as(alice), refunds.ID, ""), domain.CodeForbidden)
		requireCode(t, e.svc.DeleteDocument(as(erin), refunds.ID, ""), domain.CodeNotFound)
		requireCode(t, e.svc.DeleteDocument(as(carol), refunds.ID, strings.Repeat("r", 2001)), domain.CodeBadUserInput)

		require.NoError(t, e.svc.DeleteDocument(as(carol), refunds.ID, "  outdated policy "))

		after := e.ask(t, carol, kb.ID, q, 150)
		assert.Zero(t, docIDs(after)[refunds.ID], "the next search no longer finds it")
		n, err := db.Client.Chunk.Query().Where(chunk.DocumentID(refunds.ID)).Count(as(carol))
		require.NoError(t, err)
		assert.Zero(t, n, "chunks cascade")
		n, err = db.Client.DocumentGrant.Query().Where(documentgrant.DocumentID(refunds.ID)).Count(as(carol))
		require.NoError(t, err)
		assert.Zero(t, n)

		snap, err := db.Client.Source.Get(as(alice), src.ID)
		require.NoError(t, err)
		assert.Nil(t, snap.ChunkID, "the source's chunk link is cleared")
		assert.Nil(t, snap.DocumentID, "the source's document link is cleared")
		assert.Equal(t, src.Snippet, snap.Snippet, "the snapshot text stays")

		ev, err := db.Client.AuditEvent.Query().Where(auditevent.Action(knowledge.ActionDocumentDeleted)).Only(as(carol))
		require.NoError(t, err)
		assert.Equal(t, "carol", ev.Actor)
		assert.Equal(t, refunds.ID.String(), ev.TargetID)
		assert.Equal(t, "outdated policy", ev.Reason)
		assert.Equal(t, refunds.Title, ev.Metadata["title"])
		assert.Equal(t, "1", ev.Metadata["version"])

		requireCode(t, e.svc.DeleteDocument(as(carol), refunds.ID, ""), domain.CodeNotFound)
	})
}

// citeChunk stores an answer of alice's whose source snapshots hit.
func citeChunk(t *testing.T, c *ent.Client, kbID uuid.UUID, hit chat.Hit) *ent.Source {
	t.Helper()
	ctx := as(alice)
	now := time.Now()
	conv, err := c.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(kbID).
		SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(24 * time.Hour)).Save(ctx)
	require.NoError(t, err)
	msg, err := c.Message.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetSequenceNo(1).
		SetRole(message.RoleUSER).SetContent("refund time?").Save(ctx)
	require.NoError(t, err)
	att, err := c.Attempt.Create().SetConversationID(conv.ID).SetOwnerID("alice").SetUserMessageID(msg.ID).
		SetOriginalQuestion("refund time?").SetStartedAt(now).Save(ctx)
	require.NoError(t, err)
	src, err := c.Source.Create().SetAttemptID(att.ID).SetOwnerID("alice").SetChunkID(hit.Chunk.ID).
		SetDocumentID(hit.Document.ID).SetLabel("C1").SetRank(1).SetScore(hit.Score).SetSnippet(hit.Chunk.Content).
		SetDocumentTitle(hit.Document.Title).SetDocumentVersion(hit.Document.Version).SetCited(true).Save(ctx)
	require.NoError(t, err)
	return src
}
