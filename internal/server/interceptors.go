package server

import (
	"log/slog"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/readaudit"
	"github.com/ragchat/ragchat/resolvers"
)

// InstallInterceptors adds to c the Ent interceptors a server needs: the
// read audit (readaudit.Install, logging its failures to log) and the
// resolvers' source and message collectors
// (resolvers.InstallSourceCollector, resolvers.InstallMessageCollector). The composition root calls it once
// per client, where it opens the client (cmd/ragchat's openDB,
// internal/server/servertest); neither the engine nor the resolvers
// install anything themselves.
func InstallInterceptors(c *ent.Client, log *slog.Logger) {
	readaudit.Install(c, log)
	resolvers.InstallSourceCollector(c)
	resolvers.InstallMessageCollector(c)
}
