package server_test

import (
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/server/gqlclient"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

const (
	restrictedQuery = `query($c: ID!, $m: ID!, $a: ShareLinkAudience!) {
		shareRestrictedAnswers(input: {conversationId: $c, upToMessageId: $m, audience: $a}) {
			messageId attemptId sources { label title reason } } }`
	createIncluding = `mutation($c: ID!, $m: ID!, $i: [ID!]) {
		createShareLink(input: {conversationId: $c, upToMessageId: $m, audience: TENANT, includeRestrictedAnswers: $i}) {
			token shareLink { ` + linkChoice + ` } } }`
	updateIncluding = `mutation($id: ID!, $i: [ID!]) { updateShareLink(id: $id, input: {includeRestrictedAnswers: $i}) {
		shareLink { ` + linkChoice + ` } } }`
	linkChoice = `id restrictedAnswersChosenAt includedRestrictedAnswerIds restrictedAnswers { attemptId sources { reason } }`
)

// linkWithChoice is a ShareLink with the owner's choice.
type linkWithChoice struct {
	ID                          string
	RestrictedAnswersChosenAt   *string
	IncludedRestrictedAnswerIds []string
	RestrictedAnswers           []struct {
		AttemptID string
		Sources   []struct{ Reason string }
	}
}

// TestWithheldAnswersThroughTheAPI: after the document an answer cites
// becomes restricted, the owner is shown the answer by
// shareRestrictedAnswers (no title: she may not read it either) and on
// the link; a link without a choice withholds it from a member (withheld,
// SOURCES_RESTRICTED, no text, no sources); a link whose owner included it
// shows it; an update records a choice; an id off the path is
// BAD_USER_INPUT naming the field; the query is the owner's alone. Both
// backends.
func TestWithheldAnswersThroughTheAPI(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, bob := h.Client(t, "alice"), h.Client(t, "bob")
		curator := h.Client(t, "carol", "agent")
		anon := gqlclient.New(h.URL, "")
		w := shareSetup(t, h)
		var att struct{ Node struct{ AttemptID string } }
		mustDo(t, alice, `query($m: ID!) { node(id: $m) { ... on Message { attemptId } } }`, map[string]any{"m": w.answer}, &att)
		attempt := att.Node.AttemptID
		vars := map[string]any{"c": w.conv, "m": w.answer, "a": "TENANT"}

		var none struct{ ShareRestrictedAnswers []struct{ AttemptID string } }
		mustDo(t, alice, restrictedQuery, vars, &none)
		if len(none.ShareRestrictedAnswers) != 0 {
			t.Fatalf("restricted before the ACL change: %+v", none)
		}
		mustDo(t, curator, `mutation($d: ID!) { setDocumentAcl(documentId: $d, acl: {visibility: RESTRICTED, groups: ["legal"]}) { id } }`,
			map[string]any{"d": w.document}, nil)
		var listed struct {
			ShareRestrictedAnswers []struct {
				MessageID, AttemptID string
				Sources              []struct {
					Label  string
					Title  *string
					Reason string
				}
			}
		}
		mustDo(t, alice, restrictedQuery, vars, &listed)
		if len(listed.ShareRestrictedAnswers) != 1 {
			t.Fatalf("restricted answers: %+v", listed)
		}
		if a := listed.ShareRestrictedAnswers[0]; a.MessageID != w.answer || a.AttemptID != attempt ||
			len(a.Sources) == 0 || a.Sources[0].Reason != "RESTRICTED_DOCUMENT" || a.Sources[0].Title != nil {
			t.Fatalf("the restricted answer: %+v", a)
		}

		create := func(include any) (string, linkWithChoice) {
			t.Helper()
			var out struct {
				CreateShareLink struct {
					Token     string
					ShareLink linkWithChoice
				}
			}
			mustDo(t, alice, createIncluding, map[string]any{"c": w.conv, "m": w.answer, "i": include}, &out)
			return out.CreateShareLink.Token, out.CreateShareLink.ShareLink
		}
		answer := func(tok string) (bool, string, int) {
			t.Helper()
			var v sharedView
			mustDo(t, bob, readShare, map[string]any{"t": tok}, &v)
			a := v.SharedConversation.Messages[1]
			return a.Withheld, a.Content, len(a.Sources)
		}

		tok, l := create(nil)
		if l.RestrictedAnswersChosenAt != nil || len(l.IncludedRestrictedAnswerIds) != 0 ||
			len(l.RestrictedAnswers) != 1 || l.RestrictedAnswers[0].AttemptID != attempt {
			t.Fatalf("a link without a choice: %+v", l)
		}
		if withheld, content, n := answer(tok); !withheld || content != "" || n != 0 {
			t.Fatalf("without a choice bob reads withheld=%v %q with %d sources", withheld, content, n)
		}
		_, chosenNone := create([]string{})
		if chosenNone.RestrictedAnswersChosenAt == nil || len(chosenNone.IncludedRestrictedAnswerIds) != 0 {
			t.Fatalf("a link whose owner chose none: %+v", chosenNone)
		}
		tokIncl, incl := create([]string{attempt})
		if incl.RestrictedAnswersChosenAt == nil || len(incl.IncludedRestrictedAnswerIds) != 1 || incl.IncludedRestrictedAnswerIds[0] != attempt {
			t.Fatalf("a link whose owner included the answer: %+v", incl)
		}
		if withheld, content, _ := answer(tokIncl); withheld || content == "" {
			t.Fatalf("the included answer is withheld from bob: %q", content)
		}

		var updated struct {
			UpdateShareLink struct{ ShareLink linkWithChoice }
		}
		mustDo(t, alice, updateIncluding, map[string]any{"id": l.ID, "i": []string{attempt}}, &updated)
		if got := updated.UpdateShareLink.ShareLink; len(got.IncludedRestrictedAnswerIds) != 1 || got.RestrictedAnswersChosenAt == nil {
			t.Fatalf("updated: %+v", got)
		}
		if withheld, _, _ := answer(tok); withheld {
			t.Fatal("the answer included by an update is still withheld")
		}

		e := organiseErr(t, alice, createIncluding, map[string]any{"c": w.conv, "m": w.answer, "i": []string{"0190a8d4-0000-7000-8000-000000000000"}})
		wantBadInput(t, e, "includeRestrictedAnswers", "")
		if code, _ := errorCode(t, bob, restrictedQuery, vars); code != string(domain.CodeNotFound) {
			t.Errorf("bob lists alice's restricted answers: %s", code)
		}
		if code, _ := errorCode(t, anon, restrictedQuery, vars); code != string(domain.CodeUnauthenticated) {
			t.Errorf("anonymous: %s", code)
		}
	})
}
