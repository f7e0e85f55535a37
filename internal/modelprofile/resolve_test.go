package modelprofile_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/modelprofile"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestZeroProfilesKeepTheServerModel: a tenant without profiles answers
// with the server's model, choosing no parameter.
func TestZeroProfilesKeepTheServerModel(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		r, err := e.svc.Resolve(as(alice), modelprofile.Choice{TenantMaxAnswerTokens: 512})
		require.NoError(t, err)
		require.Nil(t, r.ProfileID)
		require.Equal(t, modelprofile.DefaultEndpoint, r.Endpoint)
		require.Equal(t, "", r.Model)
		require.True(t, r.Params.IsZero())
		require.NotNil(t, r.LLM)

		_, err = e.svc.Resolve(as(alice), modelprofile.Choice{TenantMaxAnswerTokens: 512,
			Ask: modelprofile.Level{Params: domain.ModelParameters{MaxAnswerTokens: ptr(513)}}})
		require.Equal(t, modelprofile.FieldMaxAnswerTokens, field(err))
	})
}

// TestPrecedence: ask > conversation > tenant default, for the profile
// and for each parameter.
func TestPrecedence(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(admin)
		a, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("a"), Endpoint: ptr("offline"), Model: ptr("model-a"),
			TemperatureDefault: ptr(0.1), MaxAnswerTokensMax: ptr(300), MaxAnswerTokensDefault: ptr(100), ContextWindow: ptr(4096),
			PriceInputPerM: ptr(int64(1_000_000)), PriceOutputPerM: ptr(int64(2_000_000))})
		require.NoError(t, err)
		b, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("b"), Endpoint: ptr("second"), Model: ptr("model-b"),
			TemperatureDefault: ptr(0.7), TemperatureMax: ptr(1.0), IsDefault: ptr(true)})
		require.NoError(t, err)
		c, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("c"), Endpoint: ptr("second"), Model: ptr("model-c")})
		require.NoError(t, err)

		cases := []struct {
			name      string
			ch        modelprofile.Choice
			model     string
			temp      float64
			maxTokens *int
		}{
			{"tenant default", modelprofile.Choice{}, "model-b", 0.7, nil},
			{"conversation over tenant", modelprofile.Choice{Conversation: modelprofile.Level{ProfileID: &c.ID}}, "model-c", 0.2, nil},
			{"ask over conversation", modelprofile.Choice{Ask: modelprofile.Level{ProfileID: &a.ID}, Conversation: modelprofile.Level{ProfileID: &c.ID}}, "model-a", 0.1, ptr(100)},
			{"conversation parameter over profile default", modelprofile.Choice{Conversation: modelprofile.Level{ProfileID: &a.ID, Params: domain.ModelParameters{Temperature: ptr(0.5)}}}, "model-a", 0.5, ptr(100)},
			{"ask parameter over conversation's", modelprofile.Choice{
				Ask:          modelprofile.Level{Params: domain.ModelParameters{Temperature: ptr(0.9), MaxAnswerTokens: ptr(250)}},
				Conversation: modelprofile.Level{ProfileID: &a.ID, Params: domain.ModelParameters{Temperature: ptr(0.5)}}}, "model-a", 0.9, ptr(250)},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r, err := e.svc.Resolve(as(alice), tc.ch)
				require.NoError(t, err)
				require.Equal(t, tc.model, r.Model)
				require.Equal(t, tc.temp, *r.Params.Temperature)
				require.Equal(t, tc.maxTokens, r.Params.MaxAnswerTokens)
			})
		}
		r, err := e.svc.Resolve(as(alice), modelprofile.Choice{Ask: modelprofile.Level{ProfileID: &a.ID}})
		require.NoError(t, err)
		require.Equal(t, 4096, r.Window)
		require.Equal(t, int64(1_000_000), r.PriceInputPerM)
		require.Equal(t, int64(3), r.Cost(1, 1), "1 + 2 micro-units")
		_ = b
	})
}

// TestRefusals: a profile the viewer may not use and a parameter out of
// bounds are BAD_USER_INPUT naming the field; nothing is clamped.
func TestRefusals(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := as(admin)
		eng, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("eng"), Endpoint: ptr("offline"), Model: ptr("m"), AllowedGroups: &[]string{"eng"}, TemperatureMax: ptr(1.0), MaxAnswerTokensMax: ptr(200)})
		require.NoError(t, err)
		off, err := e.svc.Create(ctx, modelprofile.Input{Name: ptr("off"), Endpoint: ptr("offline"), Model: ptr("m"), Enabled: ptr(false)})
		require.NoError(t, err)
		foreign, err := e.svc.Create(as(stranger), modelprofile.Input{Name: ptr("theirs"), Endpoint: ptr("offline"), Model: ptr("m")})
		require.NoError(t, err)

		cases := []struct {
			name  string
			v     *viewer.Viewer
			ch    modelprofile.Choice
			field string
		}{
			{"closed to the groups", alice, modelprofile.Choice{Ask: modelprofile.Level{ProfileID: &eng.ID}}, modelprofile.FieldProfile},
			{"disabled", admin, modelprofile.Choice{Ask: modelprofile.Level{ProfileID: &off.ID}}, modelprofile.FieldProfile},
			{"another tenant's", admin, modelprofile.Choice{Ask: modelprofile.Level{ProfileID: &foreign.ID}}, modelprofile.FieldProfile},
			{"unknown", admin, modelprofile.Choice{Ask: modelprofile.Level{ProfileID: ptr(uuid.New())}}, modelprofile.FieldProfile},
			{"no profile open to the viewer", alice, modelprofile.Choice{}, modelprofile.FieldProfile},
			{"temperature above max", bob, modelprofile.Choice{Ask: modelprofile.Level{ProfileID: &eng.ID, Params: domain.ModelParameters{Temperature: ptr(1.5)}}}, modelprofile.FieldTemperature},
			{"topP below 0", bob, modelprofile.Choice{Ask: modelprofile.Level{Params: domain.ModelParameters{TopP: ptr(-0.1)}}}, modelprofile.FieldTopP},
			{"maxAnswerTokens above max", bob, modelprofile.Choice{Ask: modelprofile.Level{Params: domain.ModelParameters{MaxAnswerTokens: ptr(201)}}}, modelprofile.FieldMaxAnswerTokens},
			{"maxAnswerTokens 0", bob, modelprofile.Choice{Ask: modelprofile.Level{Params: domain.ModelParameters{MaxAnswerTokens: ptr(0)}}}, modelprofile.FieldMaxAnswerTokens},
		}
		var unknownMsg string
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.svc.Resolve(as(tc.v), tc.ch)
				require.Equal(t, domain.CodeBadUserInput, domain.ErrorCode(err), "%v", err)
				require.Equal(t, tc.field, field(err))
				if tc.field == modelprofile.FieldProfile {
					if unknownMsg == "" {
						unknownMsg = domain.ErrorMessage(err)
					}
					require.Equal(t, unknownMsg, domain.ErrorMessage(err), "every unusable profile reads the same")
				}
			})
		}
	})
}
