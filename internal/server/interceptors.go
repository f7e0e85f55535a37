package server

import (
	"log/slog"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/resolvers"
)

// InstallInterceptors adds to c the Ent interceptors a server needs: the
// engine's read audit (chat.InstallReadAudit, logging its failures to
// log) and the resolvers' source collector
// (resolvers.InstallSourceCollector). The composition root calls it once
// per client, where it opens the client (cmd/ragchat's openDB,
// internal/server/servertest); neither the engine nor the resolvers
// install anything themselves.
func InstallInterceptors(c *ent.Client, log *slog.Logger) {
	chat.InstallReadAudit(c, log)
	resolvers.InstallSourceCollector(c)
}
