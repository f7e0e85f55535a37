package chat_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// convOp is one versioned conversation mutation, with how to bring a new
// conversation into the state the mutation changes.
type convOp struct {
	name    string
	v       *viewer.Viewer
	prepare func(t *testing.T, e *env, id uuid.UUID)
	run     func(e *env, v *viewer.Viewer, id uuid.UUID, opts ...chat.UpdateOption) (*ent.Conversation, error)
	changed func(c *ent.Conversation) bool
}

// convOps are the mutations that take an expected version.
func convOps() []convOp {
	archive := func(t *testing.T, e *env, id uuid.UUID) {
		_, err := e.eng.ArchiveConversation(as(alice), id)
		require.NoError(t, err)
	}
	del := func(t *testing.T, e *env, id uuid.UUID) {
		_, err := e.eng.DeleteConversation(as(alice), id, "")
		require.NoError(t, err)
	}
	prioritized := "PRIORITIZED"
	return []convOp{
		{"rename", alice, nil,
			func(e *env, v *viewer.Viewer, id uuid.UUID, o ...chat.UpdateOption) (*ent.Conversation, error) {
				return e.eng.RenameConversation(as(v), id, "Renamed", o...)
			},
			func(c *ent.Conversation) bool { return c.Title == "Renamed" }},
		{"archive", alice, nil,
			func(e *env, v *viewer.Viewer, id uuid.UUID, o ...chat.UpdateOption) (*ent.Conversation, error) {
				return e.eng.ArchiveConversation(as(v), id, o...)
			},
			func(c *ent.Conversation) bool { return c.Status == conversation.StatusARCHIVED }},
		{"unarchive", alice, archive,
			func(e *env, v *viewer.Viewer, id uuid.UUID, o ...chat.UpdateOption) (*ent.Conversation, error) {
				return e.eng.UnarchiveConversation(as(v), id, o...)
			},
			func(c *ent.Conversation) bool { return c.Status == conversation.StatusACTIVE }},
		{"historyStrategy", alice, nil,
			func(e *env, v *viewer.Viewer, id uuid.UUID, o ...chat.UpdateOption) (*ent.Conversation, error) {
				return e.eng.SetConversationHistoryStrategy(as(v), id, &prioritized, o...)
			},
			func(c *ent.Conversation) bool {
				return c.HistoryStrategy != nil && *c.HistoryStrategy == domain.StrategyPrioritized
			}},
		{"delete", alice, nil,
			func(e *env, v *viewer.Viewer, id uuid.UUID, o ...chat.UpdateOption) (*ent.Conversation, error) {
				return e.eng.DeleteConversation(as(v), id, "", o...)
			},
			func(c *ent.Conversation) bool { return c.Status == conversation.StatusDELETED }},
		{"deleteByAdmin", admin, nil,
			func(e *env, v *viewer.Viewer, id uuid.UUID, o ...chat.UpdateOption) (*ent.Conversation, error) {
				return e.eng.DeleteConversation(as(v), id, "abuse", o...)
			},
			func(c *ent.Conversation) bool { return c.Status == conversation.StatusDELETED }},
		{"restore", alice, del,
			func(e *env, v *viewer.Viewer, id uuid.UUID, o ...chat.UpdateOption) (*ent.Conversation, error) {
				return e.eng.RestoreConversation(as(v), id, o...)
			},
			func(c *ent.Conversation) bool { return c.Status == conversation.StatusACTIVE }},
	}
}

// TestConversationExpectedVersion: every conversation mutation with a
// stale expected version is CONFLICT with the current version in the
// error's details and changes nothing; with the current version it
// applies and bumps the version by one.
func TestConversationExpectedVersion(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)
		for _, op := range convOps() {
			t.Run(op.name, func(t *testing.T) {
				conv := e.conversation(t, alice)
				if op.prepare != nil {
					op.prepare(t, e, conv.ID)
				}
				before := e.db.Client.Conversation.GetX(sys, conv.ID)

				_, err := op.run(e, op.v, conv.ID, chat.ExpectVersion(before.Version-1))
				require.Equal(t, domain.CodeConflict, code(err), "%v", err)
				assert.Equal(t, before.Version, domain.ErrorDetails(err)["currentVersion"])
				_, err = op.run(e, op.v, conv.ID, chat.ExpectVersion(before.Version+7))
				require.Equal(t, domain.CodeConflict, code(err), "%v", err)
				after := e.db.Client.Conversation.GetX(sys, conv.ID)
				assert.Equal(t, before.Version, after.Version, "a conflict writes nothing")
				assert.False(t, op.changed(after), "a conflict writes nothing")

				got, err := op.run(e, op.v, conv.ID, chat.ExpectVersion(before.Version))
				require.NoError(t, err)
				assert.Equal(t, before.Version+1, got.Version)
				after = e.db.Client.Conversation.GetX(sys, conv.ID)
				assert.Equal(t, before.Version+1, after.Version)
				assert.True(t, op.changed(after))

				_, err = op.run(e, op.v, conv.ID, chat.ExpectVersion(before.Version))
				if op.name == "delete" || op.name == "deleteByAdmin" {
					assert.Equal(t, domain.CodeNotFound, code(err), "a deleted conversation is gone")
				} else {
					require.Equal(t, domain.CodeConflict, code(err), "the version it was changed from is stale now")
					assert.Equal(t, before.Version+1, domain.ErrorDetails(err)["currentVersion"])
				}
			})
		}
	})
}

// TestConcurrentRenamesOneWins: two renames with the same expected
// version, released at once, again and again: each time exactly one wins,
// the other is CONFLICT reporting the winner's version, and the title is
// the winner's. No goroutine outlives the test.
func TestConcurrentRenamesOneWins(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		baseline := goroutines()
		conv := e.conversation(t, alice)
		version := conv.Version
		for round := range 8 {
			titles := []string{"Left", "Right"}
			var wg sync.WaitGroup
			start := make(chan struct{})
			results := make([]*ent.Conversation, len(titles))
			errs := make([]error, len(titles))
			for i, title := range titles {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					results[i], errs[i] = e.eng.RenameConversation(as(alice), conv.ID, title, chat.ExpectVersion(version))
				}()
			}
			close(start)
			wg.Wait()
			winners := 0
			var winner string
			for i, err := range errs {
				switch code(err) {
				case "":
					winners++
					winner = titles[i]
					assert.Equal(t, version+1, results[i].Version)
				case domain.CodeConflict:
					assert.Equal(t, version+1, domain.ErrorDetails(err)["currentVersion"], "round %d", round)
				default:
					t.Fatalf("round %d: %v", round, err)
				}
			}
			require.Equal(t, 1, winners, "round %d: exactly one rename wins", round)
			got, err := e.eng.Conversation(as(alice), conv.ID)
			require.NoError(t, err)
			assert.Equal(t, winner, got.Title)
			assert.Equal(t, version+1, got.Version)
			version = got.Version
		}
		assertGoroutinesBack(t, baseline)
	})
}

// TestConversationUpdateWithoutVersionSurvivesRaces: without an expected
// version, concurrent renames all apply (each on the version it read, or
// again on a fresh read), and every one bumps the version.
func TestConversationUpdateWithoutVersionSurvivesRaces(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		conv := e.conversation(t, alice)
		const n = 4
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = e.eng.RenameConversation(as(alice), conv.ID, "Title "+string(rune('A'+i)))
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		got, err := e.eng.Conversation(as(alice), conv.ID)
		require.NoError(t, err)
		assert.Equal(t, conv.Version+n, got.Version)
	})
}

// TestExpiredConversationReadsExpired: past its sliding expiry or its
// absolute cap, a conversation reads as EXPIRED (and the status filters
// agree), asking in it stays CONVERSATION_EXPIRED, and unarchiving it is
// refused; before that it reads ACTIVE or ARCHIVED. The stored status is
// never changed by the passing of time.
func TestExpiredConversationReadsExpired(t *testing.T) {
	shortTTL := func(_ *chat.Config, st *domain.TenantSettings) {
		st.ConversationIdleTTL = domain.Duration{Duration: time.Hour}
		st.ConversationMaxAge = domain.Duration{Duration: 3 * time.Hour}
	}
	forEach(t, func(t *testing.T, e *env) {
		active := e.conversation(t, alice)
		archived := e.conversation(t, alice)
		_, err := e.eng.ArchiveConversation(as(alice), archived.ID)
		require.NoError(t, err)
		deleted := e.conversation(t, alice)
		_, err = e.eng.DeleteConversation(as(alice), deleted.ID, "")
		require.NoError(t, err)
		sys := viewer.SystemJobContext(context.Background(), viewer.JobPurge)

		statusOf := func(id uuid.UUID) conversation.Status {
			return authz.StatusAt(e.db.Client.Conversation.GetX(sys, id), e.clock.now())
		}
		filtered := func(s conversation.Status) []uuid.UUID {
			ids, err := e.db.Client.Conversation.Query().
				Where(authz.StatusIs(s, e.clock.now())).Order(ent.Asc(conversation.FieldCreatedAt)).IDs(sys)
			require.NoError(t, err)
			return ids
		}
		assert.Equal(t, conversation.StatusACTIVE, statusOf(active.ID))
		assert.Equal(t, conversation.StatusARCHIVED, statusOf(archived.ID))
		assert.Equal(t, []uuid.UUID{active.ID}, filtered(conversation.StatusACTIVE))
		assert.Equal(t, []uuid.UUID{archived.ID}, filtered(conversation.StatusARCHIVED))
		assert.Empty(t, filtered(conversation.StatusEXPIRED))

		// Keep one conversation alive by asking: its sliding expiry moves.
		renewed := e.conversation(t, alice)
		e.clock.advance(50 * time.Minute)
		e.ask(t, alice, renewed.ID, "上传文件最大是多少？")
		e.clock.advance(20 * time.Minute) // 70 min: the others' idle TTL passed
		defer e.clock.advance(-70 * time.Minute)

		for _, id := range []uuid.UUID{active.ID, archived.ID} {
			assert.Equal(t, conversation.StatusEXPIRED, statusOf(id))
		}
		assert.Equal(t, conversation.StatusACTIVE, statusOf(renewed.ID))
		assert.Equal(t, conversation.StatusDELETED, statusOf(deleted.ID), "DELETED stays DELETED")
		assert.Equal(t, []uuid.UUID{active.ID, archived.ID}, filtered(conversation.StatusEXPIRED))
		assert.Equal(t, []uuid.UUID{renewed.ID}, filtered(conversation.StatusACTIVE))
		assert.Empty(t, filtered(conversation.StatusARCHIVED))
		assert.Len(t, e.db.Client.Conversation.Query().
			Where(conversation.Not(authz.StatusIn(e.clock.now(), conversation.StatusEXPIRED, conversation.StatusDELETED))).IDsX(sys), 1)
		assert.Equal(t, conversation.StatusACTIVE, e.db.Client.Conversation.GetX(sys, active.ID).Status,
			"EXPIRED is computed, never stored")

		_, err = e.eng.Ask(as(alice), chat.AskInput{ConversationID: active.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
		assert.Equal(t, domain.CodeConversationExpired, code(err))
		_, err = e.eng.UnarchiveConversation(as(alice), archived.ID)
		assert.Equal(t, domain.CodeConversationExpired, code(err), "an expired conversation is never revived")
		assert.Equal(t, conversation.StatusARCHIVED, e.db.Client.Conversation.GetX(sys, archived.ID).Status)

		// The absolute cap (3h) expires even a conversation kept alive.
		e.clock.advance(30 * time.Minute) // 1h40m
		e.ask(t, alice, renewed.ID, "退款多久到账？")
		e.clock.advance(50 * time.Minute) // 2h30m: the sliding expiry is capped at 3h
		e.ask(t, alice, renewed.ID, "上传文件最大是多少？")
		e.clock.advance(35 * time.Minute) // 3h05m
		defer e.clock.advance(-115 * time.Minute)
		assert.Equal(t, conversation.StatusEXPIRED, statusOf(renewed.ID))
		assert.Equal(t, []uuid.UUID{active.ID, archived.ID, renewed.ID}, filtered(conversation.StatusEXPIRED))
		assert.Empty(t, filtered(conversation.StatusACTIVE))
	}, shortTTL)
}
