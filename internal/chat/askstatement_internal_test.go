package chat

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/attempt"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestSpecColumns: the columns rendered from a prepared create are those
// sqlgraph's create writes: the id, every field (JSON encoded as
// json.Marshal encodes it), and the foreign keys kept in the row's own
// table; a create that would need another statement is refused.
func TestSpecColumns(t *testing.T) {
	ctx := viewer.SystemJobContext(context.Background(), viewer.JobProvision)
	c := ent.NewClient() // Prepare sends nothing
	conv, msgID, other := uuid.New(), uuid.New(), uuid.New()
	manifest := &domain.ContextManifest{Strategy: domain.StrategyHybrid, ChunkIDs: []string{"c-1"}, Rules: `"quoted"`}
	wantJSON, err := json.Marshal(manifest)
	require.NoError(t, err)
	newMessage := func() *ent.MessageCreate {
		return c.Message.Create().SetTenantID("t").SetOwnerID("u").SetConversationID(conv).
			SetSequenceNo(1).SetRole(message.RoleASSISTANT).SetContent("answer")
	}
	for _, tc := range []struct {
		name    string
		prepare func() (map[string]any, error) // the spec's columns
		want    map[string]any
		wantErr bool
	}{
		{
			name: "attempt with a JSON field",
			prepare: func() (map[string]any, error) {
				_, spec, err := c.Attempt.Create().SetTenantID("t").SetOwnerID("u").SetConversationID(conv).
					SetUserMessageID(msgID).SetOriginalQuestion("q").SetStartedAt(time.Unix(0, 0)).
					SetContextManifest(manifest).Prepare(ctx)
				if err != nil {
					return nil, err
				}
				return columnsOf(t, spec)
			},
			want: map[string]any{
				attempt.FieldContextManifest: json.RawMessage(wantJSON),
				attempt.FieldConversationID:  conv, // many-to-one edges
				attempt.FieldUserMessageID:   msgID,
				attempt.FieldTenantID:        "t",
				attempt.FieldStatus:          attempt.StatusPENDING, // a default
			},
		},
		{
			name: "message with its inverse one-to-one edge",
			prepare: func() (map[string]any, error) {
				_, spec, err := newMessage().SetAttemptID(other).Prepare(ctx)
				if err != nil {
					return nil, err
				}
				return columnsOf(t, spec)
			},
			want: map[string]any{message.FieldAttemptID: other, message.FieldSequenceNo: int64(1)},
		},
		{
			name: "message with an edge kept in another table",
			prepare: func() (map[string]any, error) {
				_, spec, err := newMessage().AddAttemptIDs(other).Prepare(ctx)
				if err != nil {
					return nil, err
				}
				return columnsOf(t, spec)
			},
			wantErr: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.prepare()
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Contains(t, got, "id")
			for k, v := range tc.want {
				require.Equal(t, v, got[k], k)
			}
		})
	}
}

// columnsOf renders spec with specColumns into a map, failing on a column
// rendered twice.
func columnsOf(t *testing.T, spec *sqlgraph.CreateSpec) (map[string]any, error) {
	t.Helper()
	cols, vals, err := specColumns(spec)
	if err != nil {
		return nil, err
	}
	m := make(map[string]any, len(cols))
	for i, c := range cols {
		require.NotContains(t, m, c, "a column rendered twice")
		m[c] = vals[i]
	}
	return m, nil
}
