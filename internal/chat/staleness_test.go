package chat_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/chunk"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/contenthash"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/staleness"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// staleDoc is the text of a test document about topic, distinctive
// enough for the offline embeddings to retrieve it for staleQuestion.
func staleDoc(topic, amount string) string {
	return "The " + topic + " allowance is " + amount + " zorkmids per quarter for every " + topic + " claim."
}

func staleQuestion(topic string) string {
	return "What is the " + topic + " allowance in zorkmids per quarter?"
}

// staleCase ingests a document about topic with acl, asks about it as v
// and returns the document and the answered attempt, which must cite it.
func staleCase(t *testing.T, e *env, v *viewer.Viewer, topic string, acl knowledge.ACL) (*ent.Document, *ent.Attempt) {
	t.Helper()
	doc, err := e.svc.Ingest(as(admin), e.kb, knowledge.DocumentInput{
		Title: "Policy " + topic, SourceURI: "test://stale/" + topic, Content: staleDoc(topic, "42"), ACL: acl,
	})
	require.NoError(t, err)
	conv := e.conversation(t, v)
	o := e.ask(t, v, conv.ID, staleQuestion(topic))
	srcs := e.db.Client.Source.Query().Where(source.AttemptID(o.attempt.ID), source.DocumentID(doc.ID)).AllX(as(v))
	require.NotEmpty(t, srcs, "the answer must have the %s policy among its sources", topic)
	for _, s := range srcs {
		require.NotNil(t, s.ChunkHash, "a new source snapshots its chunk's hash")
		ck := e.db.Client.Chunk.GetX(as(admin), *s.ChunkID)
		assert.Equal(t, contenthash.Of(ck.Content), *s.ChunkHash)
		assert.Equal(t, contenthash.Of(ck.Content), *ck.ContentHash, "the hook hashes the chunk's content")
	}
	return doc, o.attempt
}

// reingest stores new content under doc's source URI as admin.
func reingest(t *testing.T, e *env, doc *ent.Document, content string, acl knowledge.ACL) {
	t.Helper()
	_, err := e.svc.Ingest(as(admin), e.kb, knowledge.DocumentInput{Title: doc.Title, SourceURI: doc.SourceURI, Content: content, ACL: acl})
	require.NoError(t, err)
}

// ofDocument keeps the staleness entries of doc's sources; DELETED and
// redacted ones no longer name their document, so they are matched by
// the source ids the attempt had for doc.
func ofDocument(st *staleness.AttemptStaleness, ids map[uuid.UUID]bool) []staleness.SourceStaleness {
	var out []staleness.SourceStaleness
	for _, s := range st.Sources {
		if ids[s.Source.ID] {
			out = append(out, s)
		}
	}
	return out
}

// TestStaleness: Attempt staleness on both backends, as the asker (or a
// reader with less access) sees it, in at most three statements:
// unchanged and same-text re-ingests are not stale; a re-ingest with other
// text is CHANGED with the versions and without the cited text; a deleted
// document is DELETED; a document the reader may no longer read is
// UNAVAILABLE with no detail, changed or not.
func TestStaleness(t *testing.T) {
	restricted := knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{demo.OpsGroup}}
	olgaWithoutOps := &viewer.Viewer{TenantID: demo.TenantID, UserID: olga.UserID, Roles: olga.Roles}
	cases := []struct {
		name   string
		asker  *viewer.Viewer
		reader *viewer.Viewer
		acl    knowledge.ACL
		change func(t *testing.T, e *env, doc *ent.Document)
		stale  bool
		want   staleness.SourceChange // "" = every source current
		// cited, current and still apply to CHANGED sources.
		cited, current int
		still          bool
	}{
		{name: "unchanged", asker: alice, reader: alice, change: func(*testing.T, *env, *ent.Document) {}},
		{name: "same text", asker: alice, reader: alice, change: func(t *testing.T, e *env, d *ent.Document) {
			reingest(t, e, d, staleDoc("same", "42"), knowledge.ACL{})
		}},
		{name: "other text", asker: alice, reader: alice, stale: true, want: staleness.SourceChanged, cited: 1, current: 2, change: func(t *testing.T, e *env, d *ent.Document) {
			reingest(t, e, d, staleDoc("other", "99"), knowledge.ACL{})
		}},
		{name: "deleted", asker: alice, reader: alice, stale: true, want: staleness.SourceDeleted, change: func(t *testing.T, e *env, d *ent.Document) {
			require.NoError(t, e.svc.DeleteDocument(as(admin), d.ID, "test"))
		}},
		{name: "restricted reader", asker: olga, reader: olgaWithoutOps, acl: restricted, want: staleness.SourceUnavailable, change: func(*testing.T, *env, *ent.Document) {}},
		{name: "restricted reader after a change", asker: olga, reader: olgaWithoutOps, acl: restricted, want: staleness.SourceUnavailable, change: func(t *testing.T, e *env, d *ent.Document) {
			reingest(t, e, d, staleDoc("restricted reader after a change", "7"), restricted)
		}},
		{name: "access revoked", asker: olga, reader: olga, acl: restricted, want: staleness.SourceUnavailable, change: func(t *testing.T, e *env, d *ent.Document) {
			_, err := e.svc.SetACL(as(admin), d.ID, knowledge.ACL{Visibility: knowledge.VisibilityRestricted, Groups: []string{"sre"}})
			require.NoError(t, err)
		}},
	}
	storetest.ForEachBackend(t, func(t *testing.T, raw *store.DB) {
		db, n := countedDB(raw)
		e := newEnv(t, db)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				topic := tc.name
				if tc.name == "same text" {
					topic = "same"
				}
				doc, att := staleCase(t, e, tc.asker, topic, tc.acl)
				ids := map[uuid.UUID]bool{}
				for _, s := range e.db.Client.Source.Query().Where(source.AttemptID(att.ID), source.DocumentID(doc.ID)).AllX(as(tc.asker)) {
					ids[s.ID] = true
				}
				tc.change(t, e, doc)
				chat.WaitIdle(e.eng)
				n.Store(0)
				st, err := staleness.Of(as(tc.reader), e.db.Client, att)
				require.NoError(t, err)
				assert.LessOrEqual(t, n.Load(), int64(3), "statements")
				got := ofDocument(st, ids)
				if tc.want == "" {
					assert.Empty(t, got, "every source of the document is current")
					assert.False(t, st.Stale)
					return
				}
				require.Len(t, got, len(ids), "every source of the document is listed")
				assert.Equal(t, tc.stale, st.Stale, "stale")
				for _, s := range got {
					assert.Equal(t, tc.want, s.Change)
					if tc.want != staleness.SourceChanged {
						assert.Nil(t, s.CitedVersion, "no cited version")
						assert.Nil(t, s.CurrentVersion, "no current version")
						assert.Nil(t, s.StillContainsCitedText, "no text comparison")
						continue
					}
					require.NotNil(t, s.CitedVersion)
					require.NotNil(t, s.CurrentVersion)
					require.NotNil(t, s.StillContainsCitedText)
					assert.Equal(t, tc.cited, *s.CitedVersion)
					assert.Equal(t, tc.current, *s.CurrentVersion)
					assert.Equal(t, tc.still, *s.StillContainsCitedText)
				}
			})
		}
	})
}

// TestStalenessStillContainsCitedText: a re-ingest that changes the
// document but keeps the cited chunk's text (a sentence appended to a
// document of many chunks leaves its first chunk as it was) is CHANGED
// with stillContainsCitedText, and such a source alone does not make the
// answer stale.
func TestStalenessStillContainsCitedText(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		filler := strings.Repeat("Appendix rules apply to every other quarter and claim. ", 400)
		content := staleDoc("kept", "42") + " " + filler
		doc, err := e.svc.Ingest(as(admin), e.kb, knowledge.DocumentInput{Title: "Policy kept", SourceURI: "test://stale/kept", Content: content})
		require.NoError(t, err)
		conv := e.conversation(t, alice)
		o := e.ask(t, alice, conv.ID, staleQuestion("kept"))
		first := e.db.Client.Chunk.Query().Where(chunk.DocumentID(doc.ID), chunk.Ordinal(0)).OnlyX(as(admin))
		cited, err := e.db.Client.Source.Query().Where(source.AttemptID(o.attempt.ID), source.ChunkID(first.ID)).Only(as(alice))
		require.NoError(t, err, "the answer cites the document's first chunk")
		reingest(t, e, doc, content+" One more closing sentence.", knowledge.ACL{})
		st, err := staleness.Of(as(alice), e.db.Client, o.attempt)
		require.NoError(t, err)
		allKept := true
		var found bool
		for _, s := range st.Sources {
			if s.Change == staleness.SourceChanged && s.StillContainsCitedText != nil && !*s.StillContainsCitedText {
				allKept = false
			}
			if s.Source.ID != cited.ID {
				continue
			}
			found = true
			assert.Equal(t, staleness.SourceChanged, s.Change)
			require.NotNil(t, s.StillContainsCitedText)
			assert.True(t, *s.StillContainsCitedText, "the first chunk's text is still in the document")
			assert.Equal(t, 1, *s.CitedVersion)
			assert.Equal(t, 2, *s.CurrentVersion)
		}
		assert.True(t, found, "the cited source is listed as CHANGED")
		assert.Equal(t, !allKept, st.Stale, "stale only when some changed source lost its text")
	})
}

// TestChunkHashIsNotSetByCallers: the hash follows the content, and a
// mutation that sets it on its own is refused.
func TestChunkHashIsNotSetByCallers(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ck := e.db.Client.Chunk.Query().FirstX(as(admin))
		require.NotNil(t, ck.ContentHash)
		assert.Equal(t, contenthash.Of(ck.Content), *ck.ContentHash)
		err := e.db.Client.Chunk.UpdateOne(ck).SetContentHash("x").Exec(as(admin))
		assert.Error(t, err)
		up := e.db.Client.Chunk.UpdateOne(ck).SetContent("changed text").SaveX(as(admin))
		assert.Equal(t, contenthash.Of("changed text"), *up.ContentHash)
	})
}
