package server_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/server/servertest"
)

// stalenessView is Attempt.staleness as a client reads it.
type stalenessView struct {
	Stale   bool
	Sources []struct {
		Change                       string
		CitedVersion, CurrentVersion *int
		StillContainsCitedText       *bool
		Source                       struct {
			ID        string
			Available bool
		}
	}
}

const stalenessQuery = `query($a: ID!) { attempt(id: $a) { staleness { stale sources { change citedVersion currentVersion stillContainsCitedText source { id available } } } } }`

const reaskMutation = `mutation($id: ID!, $k: String) { reaskAttempt(attemptId: $id, clientRequestId: $k) { deduplicated userMessage { id content } attempt { id reaskOf { id } } } }`

type reaskView struct {
	ReaskAttempt struct {
		Deduplicated bool
		UserMessage  struct{ ID, Content string }
		Attempt      struct {
			ID      string
			ReaskOf *struct{ ID string }
		}
	}
}

// TestStaleAnswersOverGraphQL: an answer citing a document is not stale
// until the document is re-ingested with other text (a same-text
// re-ingest changes nothing); then staleness lists the source as CHANGED
// from version 1 to 2 without the cited text, and reaskAttempt asks the
// question again as a new attempt linked to the stale one, idempotently.
// A temporary chat's answer reasks too (without a key). Another user's
// attempt, or one of a deleted conversation, is NOT_FOUND byte-identical
// to a random id.
func TestStaleAnswersOverGraphQL(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob, curator := h.Client(t, "alice"), h.Client(t, "bob"), h.Client(t, "carol", "agent")
		conv := createConversation(t, alice)
		var kb struct {
			Conversation struct{ KnowledgeBase struct{ ID string } }
		}
		mustDo(t, alice, `query($c: ID!) { conversation(id: $c) { knowledgeBase { id } } }`, map[string]any{"c": conv}, &kb)
		ingest := func(content string) {
			t.Helper()
			mustDo(t, curator, `mutation($k: ID!, $c: String!) { ingestDocument(input: {knowledgeBaseId: $k, title: "Zorkmid policy", sourceUri: "test://zorkmid", content: $c}) { id version } }`,
				map[string]any{"k": kb.Conversation.KnowledgeBase.ID, "c": content}, nil)
		}
		ingest("The zorkmid allowance is 42 zorkmids per quarter for every zorkmid claim.")
		att := ask(t, alice, conv, "What is the zorkmid allowance in zorkmids per quarter?")
		if s := waitDone(t, alice, att); s != "COMPLETED" {
			t.Fatalf("attempt %s", s)
		}
		staleness := func() stalenessView {
			t.Helper()
			var out struct {
				Attempt struct{ Staleness stalenessView }
			}
			mustDo(t, alice, stalenessQuery, map[string]any{"a": att}, &out)
			return out.Attempt.Staleness
		}
		if st := staleness(); st.Stale || len(st.Sources) != 0 {
			t.Fatalf("fresh answer: %+v", st)
		}
		ingest("The zorkmid allowance is 42 zorkmids per quarter for every zorkmid claim.")
		if st := staleness(); st.Stale || len(st.Sources) != 0 {
			t.Fatalf("after a same-text re-ingest: %+v", st)
		}
		ingest("The zorkmid allowance was cut to 7 zorkmids per year.")
		st := staleness()
		if !st.Stale || len(st.Sources) == 0 {
			t.Fatalf("after a changed re-ingest: %+v", st)
		}
		for _, s := range st.Sources {
			if s.Change != "CHANGED" || s.CitedVersion == nil || *s.CitedVersion != 1 || s.CurrentVersion == nil || *s.CurrentVersion != 2 ||
				s.StillContainsCitedText == nil || *s.StillContainsCitedText {
				t.Errorf("changed source: %+v", s)
			}
		}

		var first, again reaskView
		vars := map[string]any{"id": att, "k": "reask-1"}
		mustDo(t, alice, reaskMutation, vars, &first)
		r := first.ReaskAttempt
		if r.Deduplicated || r.Attempt.ReaskOf == nil || r.Attempt.ReaskOf.ID != att || r.UserMessage.Content == "" {
			t.Fatalf("reask: %+v", r)
		}
		if s := waitDone(t, alice, r.Attempt.ID); s != "COMPLETED" {
			t.Fatalf("reask attempt %s", s)
		}
		mustDo(t, alice, reaskMutation, vars, &again)
		if !again.ReaskAttempt.Deduplicated || again.ReaskAttempt.Attempt.ID != r.Attempt.ID {
			t.Errorf("repeated key: %+v, first %+v", again.ReaskAttempt, r)
		}
		var fresh struct {
			Attempt struct{ Staleness stalenessView }
		}
		mustDo(t, alice, stalenessQuery, map[string]any{"a": r.Attempt.ID}, &fresh)
		if fresh.Attempt.Staleness.Stale {
			t.Errorf("the reask's answer is stale: %+v", fresh.Attempt.Staleness)
		}

		// A temporary chat reasks like any other conversation.
		var tmp struct{ CreateConversation struct{ ID string } }
		mustDo(t, alice, `mutation { createConversation(input: {temporary: true}) { id } }`, nil, &tmp)
		ta := ask(t, alice, tmp.CreateConversation.ID, "What is the zorkmid allowance in zorkmids per quarter?")
		waitDone(t, alice, ta)
		var tr reaskView
		mustDo(t, alice, reaskMutation, map[string]any{"id": ta, "k": nil}, &tr)
		if tr.ReaskAttempt.Attempt.ReaskOf == nil || tr.ReaskAttempt.Attempt.ReaskOf.ID != ta {
			t.Errorf("temporary reask: %+v", tr.ReaskAttempt)
		}
		waitDone(t, alice, tr.ReaskAttempt.Attempt.ID)

		sameAsRandom(t, bob, reaskMutation, "id", att, map[string]any{"k": "bob-1"})
		sameAsRandom(t, bob, stalenessQuery, "a", att, nil)
		mustDo(t, alice, `mutation($c: ID!) { deleteConversation(id: $c) { id } }`, map[string]any{"c": conv}, nil)
		sameAsRandom(t, alice, reaskMutation, "id", att, map[string]any{"k": "after-delete"})
	})
}
