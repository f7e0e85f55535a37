package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/config"
)

// newBroker is the one place the broker is chosen (docs/DEPLOYMENT.md):
// PostgreSQL LISTEN/NOTIFY on the shared database (the default with
// DATABASE_URL), NATS for deployments that outgrow NOTIFY, or the
// in-process broker for SQLite and single-process use. instance names this
// process on the wire.
func newBroker(ctx context.Context, cfg config.Config, instance string, log *slog.Logger) (broker.Broker, error) {
	opts := broker.Options{Instance: instance, Logger: log}
	switch cfg.Broker.Kind {
	case config.BrokerPostgres:
		b, err := broker.NewPostgres(ctx, cfg.Database.URL, broker.PostgresOptions{Options: opts, Channel: cfg.Broker.Channel})
		if err != nil {
			return nil, fmt.Errorf("postgres broker: %w", err)
		}
		return b, nil
	case config.BrokerNATS:
		b, err := broker.NewNATS(ctx, cfg.Broker.NATSURL, broker.NATSOptions{Options: opts, Subject: cfg.Broker.Channel})
		if err != nil {
			return nil, fmt.Errorf("nats broker: %w", err)
		}
		return b, nil
	default:
		return broker.NewMemory(broker.MemoryOptions{}), nil
	}
}
