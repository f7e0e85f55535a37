package sharing_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/documentgrant"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/sharelink"
	"github.com/ragchat/ragchat/internal/askrate"
	"github.com/ragchat/ragchat/internal/clientaddr"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/sharing"
	"github.com/ragchat/ragchat/internal/viewer"
)

// anon is a reader without a viewer.
var anon = context.Background()

// TestAudiences: who may open a link of each audience.
func TestAudiences(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		_, tenantTok := w.share(t, w.a1, sharing.CreateInput{Audience: sharelink.AudienceTENANT})
		_, usersTok := w.share(t, w.a1, sharing.CreateInput{Audience: sharelink.AudienceUSERS, Users: []string{"bob", " bob "}})
		_, publicTok := w.share(t, w.a1, sharing.CreateInput{Audience: sharelink.AudiencePUBLIC})
		cases := []struct {
			name   string
			token  string
			reader context.Context
			ok     bool
		}{
			{"tenant/owner", tenantTok, as(alice), true},
			{"tenant/member", tenantTok, as(bob), true},
			{"tenant/admin", tenantTok, as(carol), true},
			{"tenant/other tenant", tenantTok, as(eve), false},
			{"tenant/anonymous", tenantTok, anon, false},
			{"users/listed", usersTok, as(bob), true},
			{"users/owner", usersTok, as(alice), true},
			{"users/not listed", usersTok, as(dave), false},
			{"users/admin not listed", usersTok, as(carol), false},
			{"users/other tenant", usersTok, as(eve), false},
			{"users/anonymous", usersTok, anon, false},
			{"public/anonymous", publicTok, anon, true},
			{"public/other tenant", publicTok, as(eve), true},
			{"public/member", publicTok, as(bob), true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				got, err := w.svc.Read(c.reader, c.token)
				if !c.ok {
					require.Equal(t, domain.CodeNotFound, code(err))
					return
				}
				require.NoError(t, err)
				require.Equal(t, "Upload limits", got.Title)
			})
		}
	}, publicOn(true))
}

// TestDeniedReadsAreIdentical: an unknown, malformed, revoked, expired or
// wrong-audience token, a link of a deleted conversation and a PUBLIC
// link after the tenant turned public links off answer the same error.
func TestDeniedReadsAreIdentical(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		ctx := as(alice)
		revoked, revokedTok := w.share(t, w.a1, sharing.CreateInput{})
		_, err := w.svc.Revoke(ctx, revoked.ID)
		require.NoError(t, err)
		at := w.clock.now().Add(time.Hour)
		_, expiredTok := w.share(t, w.a1, sharing.CreateInput{ExpiresAt: &at})
		_, usersTok := w.share(t, w.a1, sharing.CreateInput{Audience: sharelink.AudienceUSERS, Users: []string{"bob"}})
		_, publicTok := w.share(t, w.a1, sharing.CreateInput{Audience: sharelink.AudiencePUBLIC})
		_, deletedTok := w.share(t, w.a1, sharing.CreateInput{})

		// The reference: an unknown but well-formed token.
		_, ref := w.svc.Read(as(bob), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
		require.Equal(t, domain.CodeNotFound, code(ref))

		w.clock.advance(2 * time.Hour)
		st := w.settings(t)
		st.PublicShareLinks = false
		w.setSettings(t, st)
		require.NoError(t, w.db.Client.Conversation.UpdateOneID(w.conv.ID).SetStatus(conversation.StatusDELETED).
			SetDeletedAt(time.Now()).Exec(ctx))

		for name, read := range map[string]func() error{
			"malformed":    func() error { _, err := w.svc.Read(as(bob), "not-a-token"); return err },
			"revoked":      func() error { _, err := w.svc.Read(as(bob), revokedTok); return err },
			"expired":      func() error { _, err := w.svc.Read(as(bob), expiredTok); return err },
			"not listed":   func() error { _, err := w.svc.Read(as(dave), usersTok); return err },
			"other tenant": func() error { _, err := w.svc.Read(as(eve), deletedTok); return err },
			"public off":   func() error { _, err := w.svc.Read(anon, publicTok); return err },
			"deleted":      func() error { _, err := w.svc.Read(as(bob), deletedTok); return err },
		} {
			err := read()
			require.Error(t, err, name)
			require.Equal(t, ref.Error(), err.Error(), name)
			require.Equal(t, domain.ErrorDetails(ref), domain.ErrorDetails(err), name)
		}
	}, publicOn(false))
}

// TestFrozenPath: a link shows the path from the root to its message as
// it was at creation: no later message, no other branch.
func TestFrozenPath(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		_, upToA1 := w.share(t, w.a1, sharing.CreateInput{})
		_, upToA2 := w.share(t, w.a2, sharing.CreateInput{})
		// A later message on the same path, after both links were made.
		parent := w.a2
		w.db.Client.Message.Create().SetConversationID(w.conv.ID).SetOwnerID("alice").SetSequenceNo(99).
			SetParentID(parent).SetDepth(4).SetRole(message.RoleUSER).SetContent("Later question").ExecX(as(alice))

		contents := func(tok string) []string {
			got, err := w.svc.Read(as(dave), tok)
			require.NoError(t, err)
			var out []string
			for _, m := range got.Messages {
				out = append(out, m.Role+":"+m.Content)
			}
			return out
		}
		require.Equal(t, []string{"USER:What is the upload limit?", "ASSISTANT:It is 20MB [C1]."}, contents(upToA1))
		require.Equal(t, []string{"USER:What is the upload limit?", "ASSISTANT:It is 20MB [C1].",
			"USER:And for video?", "ASSISTANT:Video is 1GB [C1]."}, contents(upToA2))
	})
}

// TestSourcesReauthorisedForTheReader: a source shows only while the
// reader may read its document, including after an ACL change made after
// sharing; an anonymous reader sees only sources of documents visible to
// the whole tenant, and only when the tenant allows it. (The owner chose
// to show the answer, whose ops-only source would withhold it otherwise:
// TestWithheldAnswers.)
func TestSourcesReauthorisedForTheReader(t *testing.T) {
	type src struct {
		Label     string
		Available bool
		Title     string
		Snippet   string
	}
	sourcesOf := func(t *testing.T, w *world, reader context.Context, tok string) []src {
		got, err := w.svc.Read(reader, tok)
		require.NoError(t, err)
		require.Len(t, got.Messages, 2)
		var out []src
		for _, s := range got.Messages[1].Sources {
			out = append(out, src{s.Label, s.Available, s.Title, s.Snippet})
		}
		return out
	}
	both := []src{{"C1", true, "Public handbook", "upload limit 20MB"}, {"C2", true, "Ops runbook", "pager 555"}}
	onlyPublic := []src{{"C1", true, "Public handbook", "upload limit 20MB"}, {"C2", false, "", ""}}
	none := []src{{"C1", false, "", ""}, {"C2", false, "", ""}}

	forEach(t, func(t *testing.T, w *world) {
		include := []uuid.UUID{w.att1}
		_, tok := w.share(t, w.a1, sharing.CreateInput{IncludeRestricted: include})
		_, pubTok := w.share(t, w.a1, sharing.CreateInput{Audience: sharelink.AudiencePUBLIC, IncludeRestricted: include})
		require.Equal(t, both, sourcesOf(t, w, as(dave), tok))
		require.Equal(t, onlyPublic, sourcesOf(t, w, as(bob), tok))
		require.Equal(t, onlyPublic, sourcesOf(t, w, anon, pubTok))
		require.Equal(t, onlyPublic, sourcesOf(t, w, as(eve), pubTok))

		// The ops grant goes after sharing: dave loses the source at once.
		_, err := w.db.Client.DocumentGrant.Delete().Where(documentgrant.DocumentID(w.restrictedDoc)).Exec(as(carol))
		require.NoError(t, err)
		require.Equal(t, onlyPublic, sourcesOf(t, w, as(dave), tok))

		st := w.settings(t)
		st.PublicShareSources = false
		w.setSettings(t, st)
		require.Equal(t, none, sourcesOf(t, w, anon, pubTok))
	}, publicOn(true))
}

// TestReadCountIsAggregated: each read adds one to the link's count (one
// row, however many reads).
func TestReadCountIsAggregated(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		l, tok := w.share(t, w.a1, sharing.CreateInput{})
		for range 3 {
			_, err := w.svc.Read(as(bob), tok)
			require.NoError(t, err)
		}
		got, err := w.db.Client.ShareLink.Get(as(alice), l.ID)
		require.NoError(t, err)
		require.EqualValues(t, 3, got.ReadCount)
		require.NotNil(t, got.LastReadAt)
		require.Equal(t, 1, w.db.Client.ShareLink.Query().Where(sharelink.ID(l.ID)).CountX(as(alice)))
	})
}

// TestReadsAreRateLimited: reads are limited per link and per client
// address, with RATE_LIMITED and retryAfterSeconds.
func TestReadsAreRateLimited(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		lim := askrate.NewDBLimiter(w.db, nil)
		svc := sharing.New(w.db.Client, sharing.Options{Limiter: lim,
			LinkRate:    askrate.Rate{PerMinute: 1, Burst: 2},
			AddressRate: askrate.Rate{PerMinute: 1, Burst: 3}})
		_, tok := w.share(t, w.a1, sharing.CreateInput{})
		_, tok2 := w.share(t, w.a1, sharing.CreateInput{})
		from := func(addr string) context.Context { return clientaddr.NewContext(as(bob), addr) }

		_, err := svc.Read(from("10.0.0.1"), tok)
		require.NoError(t, err)
		_, err = svc.Read(from("10.0.0.2"), tok)
		require.NoError(t, err)
		_, err = svc.Read(from("10.0.0.3"), tok)
		require.Equal(t, domain.CodeRateLimited, code(err), "the link's burst is spent")
		require.Equal(t, sharing.LimitShareReads, domain.ErrorDetails(err)["limit"])
		require.Positive(t, domain.ErrorDetails(err)["retryAfterSeconds"])

		// 10.0.0.3 spent one read above; two more exhaust its burst of 3,
		// whichever link they read.
		_, err = svc.Read(from("10.0.0.3"), tok2)
		require.NoError(t, err)
		_, err = svc.Read(from("10.0.0.3"), tok2)
		require.NoError(t, err)
		_, err = svc.Read(from("10.0.0.3"), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
		require.Equal(t, domain.CodeRateLimited, code(err), "the address's burst is spent")
	})
}

// TestCreateRefusals: only the owner shares; the message must be in the
// conversation; PUBLIC needs the tenant setting; a temporary chat cannot
// be shared.
func TestCreateRefusals(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		in := func(mod func(*sharing.CreateInput)) sharing.CreateInput {
			c := sharing.CreateInput{ConversationID: w.conv.ID, UpToMessageID: w.a1, Audience: sharelink.AudienceTENANT}
			mod(&c)
			return c
		}
		past := time.Now().Add(-time.Hour)
		cases := []struct {
			name  string
			ctx   context.Context
			in    sharing.CreateInput
			code  domain.Code
			field string
		}{
			{"member of the tenant", as(bob), in(func(*sharing.CreateInput) {}), domain.CodeNotFound, ""},
			{"admin", as(carol), in(func(*sharing.CreateInput) {}), domain.CodeNotFound, ""},
			{"other tenant", as(eve), in(func(*sharing.CreateInput) {}), domain.CodeNotFound, ""},
			{"anonymous", anon, in(func(*sharing.CreateInput) {}), domain.CodeUnauthenticated, ""},
			{"unknown message", as(alice), in(func(c *sharing.CreateInput) { c.UpToMessageID = uuid.New() }), domain.CodeNotFound, ""},
			{"public off", as(alice), in(func(c *sharing.CreateInput) { c.Audience = sharelink.AudiencePUBLIC }), domain.CodeBadUserInput, "audience"},
			{"bad audience", as(alice), in(func(c *sharing.CreateInput) { c.Audience = "EVERYONE" }), domain.CodeBadUserInput, "audience"},
			{"users without users", as(alice), in(func(c *sharing.CreateInput) { c.Audience = sharelink.AudienceUSERS }), domain.CodeBadUserInput, "users"},
			{"users on tenant", as(alice), in(func(c *sharing.CreateInput) { c.Users = []string{"bob"} }), domain.CodeBadUserInput, "users"},
			{"expiry in the past", as(alice), in(func(c *sharing.CreateInput) { c.ExpiresAt = &past }), domain.CodeBadUserInput, "expiresAt"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, _, err := w.svc.Create(c.ctx, c.in)
				require.Equal(t, c.code, code(err), "%v", err)
				if c.field != "" {
					require.Equal(t, c.field, domain.ErrorDetails(err)["field"])
				}
			})
		}

		// A message of another conversation of alice's is NOT_FOUND too.
		now := time.Now()
		other := w.db.Client.Conversation.Create().SetUserID("alice").SetKnowledgeBaseID(w.conv.KnowledgeBaseID).
			SetExpiresAt(now.Add(time.Hour)).SetAbsoluteExpiresAt(now.Add(time.Hour)).
			SetTemporaryExpiresAt(now.Add(time.Hour)).SaveX(as(alice))
		_, _, err := w.svc.Create(as(alice), sharing.CreateInput{ConversationID: other.ID, UpToMessageID: w.a1, Audience: sharelink.AudienceTENANT})
		require.Equal(t, domain.CodeBadUserInput, code(err), "a temporary chat")
		require.Equal(t, "conversationId", domain.ErrorDetails(err)["field"])
	})
}

// TestUpdateRevokeAndMine: an update keeps the token; a revoke is seen at
// once by another service on the same database; only the owner lists,
// updates or revokes a link; every change is audited.
func TestUpdateRevokeAndMine(t *testing.T) {
	forEach(t, func(t *testing.T, w *world) {
		ctx := as(alice)
		l, tok := w.share(t, w.a1, sharing.CreateInput{})
		replica := sharing.New(w.db.Client, sharing.Options{})

		users := []string{"dave"}
		aud := sharelink.AudienceUSERS
		l, err := w.svc.Update(ctx, l.ID, sharing.UpdateInput{Audience: &aud, Users: users})
		require.NoError(t, err)
		require.Equal(t, []string{"dave"}, l.Users)
		_, err = replica.Read(as(dave), tok)
		require.NoError(t, err, "the same token still opens the link")
		_, err = replica.Read(as(bob), tok)
		require.Equal(t, domain.CodeNotFound, code(err))

		for _, v := range []*viewerT{bob, carol, eve} {
			_, err := w.svc.Revoke(as(v), l.ID)
			require.Equal(t, domain.CodeNotFound, code(err), v.UserID)
			_, err = w.svc.Update(as(v), l.ID, sharing.UpdateInput{})
			require.Equal(t, domain.CodeNotFound, code(err), v.UserID)
			q, err := w.svc.Mine(as(v))
			require.NoError(t, err)
			require.Zero(t, q.CountX(as(v)), v.UserID)
		}
		q, err := w.svc.Mine(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, q.CountX(ctx))

		_, err = w.svc.Revoke(ctx, l.ID)
		require.NoError(t, err)
		_, err = replica.Read(as(dave), tok)
		require.Equal(t, domain.CodeNotFound, code(err), "the other instance sees the revoke at once")
		_, err = w.svc.Update(ctx, l.ID, sharing.UpdateInput{})
		require.Equal(t, domain.CodeBadUserInput, code(err))

		actions := w.db.Client.AuditEvent.Query().Where(auditevent.TargetID(l.ID.String())).
			Order(auditevent.ByAt()).Select(auditevent.FieldAction).StringsX(as(carol))
		require.Equal(t, []string{sharing.ActionCreated, sharing.ActionUpdated, sharing.ActionRevoked}, actions)
	})
}

type viewerT = viewer.Viewer
