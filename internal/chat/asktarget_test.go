package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/store/storetest"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestAskOnTenantWithoutStoredSettings: a tenant provisioned without
// settings (as `ragchat ingest` creates one) can be asked in on both
// backends. On SQLite the ask's conversation-and-settings join used to
// read a NULL settings column with no scan type, and the ask panicked
// (INTERNAL) before anything was stored.
func TestAskOnTenantWithoutStoredSettings(t *testing.T) {
	storetest.ForEachBackend(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		sys := viewer.SystemJobContext(t.Context(), viewer.JobProvision)
		require.NoError(t, db.Client.Tenant.UpdateOneID(demo.TenantID).ClearSettings().Exec(sys))
		conv := e.conversation(t, alice)
		out := e.ask(t, alice, conv.ID, "上传文件最大是多少？")
		require.Equal(t, "COMPLETED", string(out.attempt.Status))
	})
}
