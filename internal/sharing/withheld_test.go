package sharing_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/attachment"
	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/document"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/sharing"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/migrations"
)

// seen is what a reader sees of an answer on a share.
type seen struct {
	Content  string
	Withheld bool
	Reason   string
	Sources  int
}

// answers returns the reader's view of the share's answers, in order.
func answers(t *testing.T, svc *sharing.Service, reader context.Context, tok string) []seen {
	t.Helper()
	got, err := svc.Read(reader, tok)
	require.NoError(t, err)
	var out []seen
	for _, m := range got.Messages {
		if m.Role == "ASSISTANT" {
			out = append(out, seen{m.Content, m.Withheld, m.WithheldReason, len(m.Sources)})
		}
	}
	return out
}

var (
	a1Shown    = seen{Content: "It is 20MB [C1].", Sources: 2}
	a2Shown    = seen{Content: "Video is 1GB [C1].", Sources: 1}
	a2NoSource = seen{Content: "Video is 1GB [C1].", Sources: 1}
	held       = seen{Withheld: true, Reason: sharing.WithheldSourcesRestricted}
)

// TestWithheldAnswers: an answer given a source the reader may not read
// (a1: its uncited C2 is ops-only) is withheld from that reader, with
// nothing of it or its sources, on every audience, unless the owner chose
// to show it; an answer all of whose sources the reader may read (a2) is
// shown. Readers: members with and without the ops group, an admin, the
// owner, another tenant, anonymous. Both backends.
func TestWithheldAnswers(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		include := []uuid.UUID{w.att1}
		_, tenant := w.share(t, w.a2, sharing.CreateInput{})
		_, tenantIncl := w.share(t, w.a2, sharing.CreateInput{IncludeRestricted: include})
		_, users := w.share(t, w.a2, sharing.CreateInput{Audience: sharelink.AudienceUSERS, Users: []string{"bob", "dave"}})
		_, public := w.share(t, w.a2, sharing.CreateInput{Audience: sharelink.AudiencePUBLIC})
		_, publicIncl := w.share(t, w.a2, sharing.CreateInput{Audience: sharelink.AudiencePUBLIC, IncludeRestricted: include})
		cases := []struct {
			name   string
			tok    string
			reader context.Context
			want   []seen
		}{
			{"tenant/member without ops", tenant, as(bob), []seen{held, a2Shown}},
			{"tenant/member in ops", tenant, as(dave), []seen{a1Shown, a2Shown}},
			{"tenant/admin", tenant, as(carol), []seen{a1Shown, a2Shown}},
			{"tenant/owner not in ops", tenant, as(alice), []seen{held, a2Shown}},
			{"tenant included/member without ops", tenantIncl, as(bob), []seen{a1Shown, a2Shown}},
			{"users/bob", users, as(bob), []seen{held, a2Shown}},
			{"users/dave", users, as(dave), []seen{a1Shown, a2Shown}},
			{"public/anonymous", public, anon, []seen{held, a2Shown}},
			{"public/other tenant", public, as(eve), []seen{held, a2Shown}},
			{"public/member in ops", public, as(dave), []seen{a1Shown, a2Shown}},
			{"public included/anonymous", publicIncl, anon, []seen{a1Shown, a2NoSource}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				require.Equal(t, c.want, answers(t, w.svc, c.reader, c.tok))
			})
		}

		// Without publicShareSources no document is open to anonymous
		// readers: a2 is withheld too, the included a1 stays shown.
		st := w.settings(t)
		st.PublicShareSources = false
		w.setSettings(t, st)
		require.Equal(t, []seen{held, held}, answers(t, w.svc, anon, public))
		require.Equal(t, []seen{{Content: "It is 20MB [C1].", Sources: 2}, held}, answers(t, w.svc, anon, publicIncl))
	}, publicOn(true))
}

// TestRestrictedAnswers: what the owner is shown before sharing, per
// audience: the answers with a source some reader may not read, why, and
// the title only where the owner may read it; the refusals are Create's
// (other users, admins, other tenants, anonymous, an unknown message, a
// temporary chat, a deleted conversation).
func TestRestrictedAnswers(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		title := func(s string) *string { return &s }
		list := func(aud sharelink.Audience, users ...string) []sharing.RestrictedAnswer {
			t.Helper()
			got, err := w.svc.RestrictedAnswers(as(alice), sharing.AudienceInput{ConversationID: w.conv.ID,
				UpToMessageID: w.a2, Audience: aud, Users: users})
			require.NoError(t, err)
			return got
		}
		opsOnly := []sharing.RestrictedAnswer{{MessageID: w.a1, AttemptID: w.att1,
			Sources: []sharing.RestrictedSource{{Label: "C2", Reason: sharing.RestrictedDocument}}}}
		require.Equal(t, opsOnly, list(sharelink.AudienceTENANT))
		require.Equal(t, opsOnly, list(sharelink.AudiencePUBLIC))
		require.Equal(t, opsOnly, list(sharelink.AudienceUSERS, "dave"), "a group grant is not known to hold for a named user")

		// A grant naming bob opens the document to a USERS link of bob's.
		w.db.Client.DocumentGrant.Create().SetDocumentID(w.restrictedDoc).SetPrincipalKind(documentgrant.PrincipalKindUSER).
			SetPrincipal("bob").ExecX(as(carol))
		require.Empty(t, list(sharelink.AudienceUSERS, "bob"))
		require.Equal(t, opsOnly, list(sharelink.AudienceUSERS, "bob", "dave"))
		// alice may read the document now: she is shown its title.
		w.db.Client.DocumentGrant.Create().SetDocumentID(w.restrictedDoc).SetPrincipalKind(documentgrant.PrincipalKindUSER).
			SetPrincipal("alice").ExecX(as(carol))
		require.Equal(t, title("Ops runbook"), list(sharelink.AudienceTENANT)[0].Sources[0].Title)

		// Without publicShareSources every document is restricted for
		// PUBLIC.
		st := w.settings(t)
		st.PublicShareSources = false
		w.setSettings(t, st)
		pub := list(sharelink.AudiencePUBLIC)
		require.Len(t, pub, 2)
		require.Equal(t, []sharing.RestrictedSource{{Label: "C1", Title: title("Public handbook"), Reason: sharing.RestrictedDocument},
			{Label: "C2", Title: title("Ops runbook"), Reason: sharing.RestrictedDocument}}, pub[0].Sources)
		require.Equal(t, w.att2, pub[1].AttemptID)

		in := sharing.AudienceInput{ConversationID: w.conv.ID, UpToMessageID: w.a2, Audience: sharelink.AudienceTENANT}
		for _, c := range []struct {
			name  string
			ctx   context.Context
			in    func(sharing.AudienceInput) sharing.AudienceInput
			code  domain.Code
			field string
		}{
			{"member", as(bob), nil, domain.CodeNotFound, ""},
			{"admin", as(carol), nil, domain.CodeNotFound, ""},
			{"other tenant", as(eve), nil, domain.CodeNotFound, ""},
			{"anonymous", anon, nil, domain.CodeUnauthenticated, ""},
			{"unknown message", as(alice), func(i sharing.AudienceInput) sharing.AudienceInput { i.UpToMessageID = uuid.New(); return i }, domain.CodeNotFound, ""},
			{"users on tenant", as(alice), func(i sharing.AudienceInput) sharing.AudienceInput { i.Users = []string{"bob"}; return i }, domain.CodeBadUserInput, "users"},
		} {
			t.Run(c.name, func(t *testing.T) {
				i := in
				if c.in != nil {
					i = c.in(i)
				}
				_, err := w.svc.RestrictedAnswers(c.ctx, i)
				require.Equal(t, c.code, code(err), "%v", err)
				if c.field != "" {
					require.Equal(t, c.field, domain.ErrorDetails(err)["field"])
				}
			})
		}

		// A temporary chat is refused, a deleted conversation unknown.
		now := time.Now()
		tmp := w.db.Client.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(w.conv.KnowledgeBaseID).
			SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(time.Hour)).
			SetTemporaryExpiresAt(now.Add(time.Hour)).SaveX(as(alice))
		i := in
		i.ConversationID = tmp.ID
		_, err := w.svc.RestrictedAnswers(as(alice), i)
		require.Equal(t, domain.CodeBadUserInput, code(err))
		require.Equal(t, "conversationId", domain.ErrorDetails(err)["field"])
		require.NoError(t, w.db.Client.Conversation.UpdateOneID(w.conv.ID).SetStatus(conversation.StatusDELETED).
			SetDeletedAt(now).Exec(as(alice)))
		_, err = w.svc.RestrictedAnswers(as(alice), in)
		require.Equal(t, domain.CodeNotFound, code(err), "a deleted conversation")
	}, publicOn(true))
}

// TestRestrictedChoice: the owner's choice is recorded with the answers it
// was made against and audited; an id that is not an answer on the path
// is refused; an answer restricted after the choice is withheld until the
// owner chooses again; an update of the audience clears the choice, one
// of the expiry keeps it; a deleted source withholds an included answer.
func TestRestrictedChoice(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		ctx := as(alice)
		_, _, err := w.svc.Create(ctx, sharing.CreateInput{ConversationID: w.conv.ID, UpToMessageID: w.a2,
			Audience: sharelink.AudienceTENANT, IncludeRestricted: []uuid.UUID{uuid.New()}})
		require.Equal(t, domain.CodeBadUserInput, code(err))
		require.Equal(t, "includeRestrictedAnswers", domain.ErrorDetails(err)["field"])
		_, _, err = w.svc.Create(ctx, sharing.CreateInput{ConversationID: w.conv.ID, UpToMessageID: w.a1,
			Audience: sharelink.AudienceTENANT, IncludeRestricted: []uuid.UUID{w.att2}})
		require.Equal(t, domain.CodeBadUserInput, code(err), "a2 is past the link's path")

		// a2 is not restricted now: including it records nothing of it.
		l, tok := w.share(t, w.a2, sharing.CreateInput{IncludeRestricted: []uuid.UUID{w.att1, w.att2}})
		require.Equal(t, []uuid.UUID{w.att1}, l.IncludedAttemptIds)
		require.NotNil(t, l.RestrictedAnswersChosenAt)
		meta := w.db.Client.AuditEvent.Query().Where(auditevent.TargetID(l.ID.String()), auditevent.Action(sharing.ActionCreated)).
			OnlyX(as(carol)).Metadata
		require.Equal(t, "chosen", meta["restrictedAnswersChoice"])
		require.Equal(t, w.att1.String(), meta["restrictedAnswers"])
		require.Equal(t, w.att1.String(), meta["includedRestrictedAnswers"])
		require.Equal(t, []seen{a1Shown, a2Shown}, answers(t, w.svc, as(bob), tok))

		// The public document becomes ops-only: a2 is restricted since the
		// choice, so withheld; a1 stays shown (its sources now both
		// unavailable to bob).
		require.NoError(t, w.db.Client.Document.UpdateOneID(w.publicDoc).SetVisibility(document.VisibilityRESTRICTED).Exec(as(carol)))
		require.Equal(t, []seen{{Content: "It is 20MB [C1].", Sources: 2}, held}, answers(t, w.svc, as(bob), tok))
		// The owner chooses again, shown both.
		got, err := w.svc.LinkRestrictedAnswers(ctx, l)
		require.NoError(t, err)
		require.Len(t, got, 2)
		l, err = w.svc.Update(ctx, l.ID, sharing.UpdateInput{IncludeRestricted: []uuid.UUID{w.att1, w.att2}})
		require.NoError(t, err)
		require.ElementsMatch(t, []uuid.UUID{w.att1, w.att2}, l.IncludedAttemptIds)
		require.Equal(t, []seen{{Content: "It is 20MB [C1].", Sources: 2}, a2Shown}, answers(t, w.svc, as(bob), tok))

		// An update of the expiry keeps the choice; one of the audience
		// clears it, audited.
		later := w.clock.now().Add(time.Hour)
		l, err = w.svc.Update(ctx, l.ID, sharing.UpdateInput{ExpiresAt: &later})
		require.NoError(t, err)
		require.Len(t, l.IncludedAttemptIds, 2)
		aud := sharelink.AudienceUSERS
		l, err = w.svc.Update(ctx, l.ID, sharing.UpdateInput{Audience: &aud, Users: []string{"bob"}})
		require.NoError(t, err)
		require.Empty(t, l.IncludedAttemptIds)
		require.Nil(t, l.RestrictedAnswersChosenAt)
		require.Equal(t, []seen{held, held}, answers(t, w.svc, as(bob), tok))
		last := w.db.Client.AuditEvent.Query().Where(auditevent.TargetID(l.ID.String())).Order(auditevent.ByAt()).AllX(as(carol))
		require.Equal(t, "cleared", last[len(last)-1].Metadata["restrictedAnswersChoice"])

		// Included again, then the public document is deleted: both
		// answers cited it, so both are withheld whatever was chosen, even
		// from dave, who may read everything left.
		_, err = w.svc.Update(ctx, l.ID, sharing.UpdateInput{IncludeRestricted: []uuid.UUID{w.att1, w.att2}, Users: []string{"bob", "dave"}})
		require.NoError(t, err)
		require.Equal(t, []seen{{Content: "It is 20MB [C1].", Sources: 2}, a2Shown}, answers(t, w.svc, as(bob), tok))
		require.NoError(t, w.db.Client.Document.DeleteOneID(w.publicDoc).Exec(as(carol)))
		require.Equal(t, []seen{held, held}, answers(t, w.svc, as(bob), tok))
		require.Equal(t, []seen{held, held}, answers(t, w.svc, as(dave), tok))
		got, err = w.svc.LinkRestrictedAnswers(ctx, l)
		require.NoError(t, err)
		require.Equal(t, sharing.RestrictedDeleted, got[0].Sources[0].Reason)
		require.Nil(t, got[0].Sources[0].Title)
	})
}

// TestAttachmentSourcesAreRestricted: an answer given one of the owner's
// attachments is restricted for every audience and withheld from every
// reader who may not read the attachment (all but the owner and the
// tenant's admins), unless included; once the attachment is deleted, from
// everyone.
func TestAttachmentSourcesAreRestricted(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		ctx := as(alice)
		c := w.db.Client
		att := c.Attachment.Create().SetOwnerID("alice").SetConversationID(w.conv.ID).SetName("notes.txt").SetMediaType("text/plain").
			SetSize(5).SetSha256("00").SetBlobKey("k").SetStatus(attachment.StatusREADY).SaveX(ctx)
		// a2's source becomes the attachment.
		_, err := c.Source.Delete().Where(source.AttemptID(w.att2)).Exec(ctx)
		require.NoError(t, err)
		c.Source.Create().SetAttemptID(w.att2).SetOwnerID("alice").SetKind(source.KindATTACHMENT).SetAttachmentID(att.ID).
			SetLabel("C1").SetRank(1).SetScore(0.8).SetSnippet("notes").SetDocumentTitle("notes.txt").
			SetDocumentVersion(1).SetCited(true).ExecX(ctx)

		got, err := w.svc.RestrictedAnswers(ctx, sharing.AudienceInput{ConversationID: w.conv.ID, UpToMessageID: w.a2,
			Audience: sharelink.AudienceUSERS, Users: []string{"dave"}})
		require.NoError(t, err)
		require.Len(t, got, 2)
		name := "notes.txt"
		require.Equal(t, []sharing.RestrictedSource{{Label: "C1", Title: &name, Reason: sharing.RestrictedAttachment}}, got[1].Sources)

		_, tok := w.share(t, w.a2, sharing.CreateInput{})
		_, incl := w.share(t, w.a2, sharing.CreateInput{IncludeRestricted: []uuid.UUID{w.att2}})
		require.Equal(t, held, answers(t, w.svc, as(dave), tok)[1])
		require.Equal(t, seen{Content: "Video is 1GB [C1].", Sources: 1}, answers(t, w.svc, as(carol), tok)[1],
			"an admin reads the tenant's conversations, attachments included")
		require.Equal(t, seen{Content: "Video is 1GB [C1].", Sources: 1}, answers(t, w.svc, as(alice), tok)[1], "the owner reads her attachment")
		require.Equal(t, seen{Content: "Video is 1GB [C1].", Sources: 1}, answers(t, w.svc, as(dave), incl)[1])

		require.NoError(t, c.Attachment.DeleteOneID(att.ID).Exec(ctx))
		require.Equal(t, held, answers(t, w.svc, as(alice), tok)[1])
		require.Equal(t, held, answers(t, w.svc, as(dave), incl)[1])
	})
}

// TestLinksBeforeTheChoiceWithhold: a link written before the
// restricted-answers migration (simulated by migrating down past it and up
// again, which drops and re-adds its columns) has no choice, so its
// restricted answers are withheld until its owner chooses. PostgreSQL,
// where migrations run.
func TestLinksBeforeTheChoiceWithhold(t *testing.T) {
	url := testdb.PostgresURL(t)
	ctx := context.Background()
	db, err := store.Open(ctx, store.Config{DatabaseURL: url, Migrate: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	w := &world{db: db, clock: &clock{}}
	w.svc = sharing.New(db.Client, sharing.Options{Now: w.clock.now})
	w.seed(t)
	l, tok := w.share(t, w.a2, sharing.CreateInput{IncludeRestricted: []uuid.UUID{w.att1}})
	require.Equal(t, []seen{a1Shown, a2Shown}, answers(t, w.svc, as(bob), tok))

	before := versionBefore(t, "share_link_restricted_answers")
	require.NoError(t, store.MigratePostgresTo(ctx, db.SQL, before))
	require.NoError(t, store.MigratePostgres(ctx, db.SQL))
	require.Equal(t, []seen{held, a2Shown}, answers(t, w.svc, as(bob), tok))
	got, err := db.Client.ShareLink.Get(as(alice), l.ID)
	require.NoError(t, err)
	require.Nil(t, got.RestrictedAnswersChosenAt)
	require.Empty(t, got.IncludedAttemptIds)
}

// versionBefore returns the version of the migration before the one
// named name.
func versionBefore(t *testing.T, name string) uint {
	t.Helper()
	entries, err := migrations.FS.ReadDir(".")
	require.NoError(t, err)
	var prev uint64
	for _, e := range entries {
		num, rest, ok := strings.Cut(e.Name(), "_")
		n, err := strconv.ParseUint(num, 10, 64)
		if !ok || err != nil || !strings.HasSuffix(rest, ".up.sql") {
			continue
		}
		if strings.TrimSuffix(rest, ".up.sql") == name {
			return uint(prev)
		}
		prev = n
	}
	t.Fatalf("no migration %s", name)
	return 0
}
