package chat_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
)

// TestAskResolvesTheTenantDefault: an ask that chooses no model answers
// with what the ask's own read learnt of the tenant's profiles
// (docs/ENGINE.md, "Statements per ask"): the server's model while the
// tenant has none; a refusal naming modelProfileId, with nothing written,
// while its only enabled profile is closed to the asker (alice is not in
// "eng"); and the open default once there is one.
func TestAskResolvesTheTenantDefault(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		var svc *modelprofile.Service
		e := newEnvDeps(t, db, nil, func(d *chat.Deps) {
			svc = modelprofile.New(db.Client, modelprofile.NewEndpoints(d.Model, d.Model, nil))
			d.Models = svc
		})
		conv := e.conversation(t, alice)
		str := func(s string) *string { return &s }
		yes := true
		steps := []struct {
			name    string
			profile *modelprofile.Input // created before the ask
			want    func(t *testing.T, p *ent.ModelProfile, res *chat.AskResult, err error)
		}{
			{"no profiles: the server's model", nil, func(t *testing.T, _ *ent.ModelProfile, res *chat.AskResult, err error) {
				require.NoError(t, err)
				require.Nil(t, res.Attempt.ModelProfileID)
			}},
			{"the only profile is closed to the asker", &modelprofile.Input{Name: str("eng"), Endpoint: str("offline"), Model: str("m"),
				AllowedGroups: &[]string{"eng"}}, func(t *testing.T, _ *ent.ModelProfile, _ *chat.AskResult, err error) {
				require.Equal(t, domain.CodeBadUserInput, domain.ErrorCode(err), "%v", err)
				var de *domain.Error
				require.ErrorAs(t, err, &de)
				require.Equal(t, modelprofile.FieldProfile, de.Details["field"])
			}},
			{"an open default", &modelprofile.Input{Name: str("open"), Endpoint: str("offline"), Model: str("m"), IsDefault: &yes},
				func(t *testing.T, p *ent.ModelProfile, res *chat.AskResult, err error) {
					require.NoError(t, err)
					require.NotNil(t, res.Attempt.ModelProfileID)
					require.Equal(t, p.ID, *res.Attempt.ModelProfileID)
				}},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				var p *ent.ModelProfile
				if s.profile != nil {
					var err error
					p, err = svc.Create(as(admin), *s.profile)
					require.NoError(t, err)
				}
				before := e.db.Client.Message.Query().CountX(as(alice))
				res, err := e.eng.Ask(as(alice), chat.AskInput{ConversationID: conv.ID, ClientMessageID: uuid.NewString(), Question: "退款多久到账？"})
				s.want(t, p, res, err)
				if err != nil {
					require.Equal(t, before, e.db.Client.Message.Query().CountX(as(alice)), "a refused ask writes nothing")
					return
				}
				e.wait(t, alice, res.Attempt.ID, 0)
			})
		}
	})
}
