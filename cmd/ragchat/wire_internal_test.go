package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent/auditevent"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/knowledge"
	"github.com/ragchat/ragchat/internal/knowledge/demo"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/internal/testdb"
	"github.com/ragchat/ragchat/internal/viewer"
)

// TestOpenDBInstallsTheInterceptors: the command installs its client's
// interceptors where it opens the database (openDB), not as a side effect
// of building the engine: an admin's read of another user's conversation
// through the client the command opened is audited, with the engine the
// command wires on it.
func TestOpenDBInstallsTheInterceptors(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"RAGCHAT_DATA_DIR": dir, "RAGCHAT_BROKER": "memory"}
			if b.Name == "postgres" {
				env["DATABASE_URL"] = b.DSN
			} else {
				env["RAGCHAT_SQLITE_PATH"] = filepath.Join(dir, "ragchat.db")
			}
			cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			require.NoError(t, err)
			db, err := openDB(ctx, cfg, log, true)
			require.NoError(t, err)
			c, err := newCore(ctx, cfg, db, log, nil, nil)
			if err != nil {
				_ = db.Close()
				t.Fatal(err)
			}
			t.Cleanup(c.close)
			_, err = knowledge.LoadDemo(ctx, db.Client, c.knowledge)
			require.NoError(t, err)

			alice := viewer.NewContext(ctx, &viewer.Viewer{TenantID: demo.TenantID, UserID: "alice", Roles: []viewer.Role{viewer.RoleMember}})
			admin := viewer.NewContext(ctx, &viewer.Viewer{TenantID: demo.TenantID, UserID: "root", Roles: []viewer.Role{viewer.RoleAdmin}})
			conv, err := c.engine.CreateConversation(alice, chat.CreateConversationInput{})
			require.NoError(t, err)
			_, err = db.Client.Conversation.Get(admin, conv.ID) // outside any audit scope: audited at once
			require.NoError(t, err)
			n, err := db.Client.AuditEvent.Query().
				Where(auditevent.Action(readaudit.ActionAdminRead), auditevent.TargetID(conv.ID.String())).
				Count(admin)
			require.NoError(t, err)
			require.Equal(t, 1, n, "the admin's read is audited once")
		})
	}
}
