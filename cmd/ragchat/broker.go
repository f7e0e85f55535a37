package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/sharedsecret"
)

// newBroker is the one place the broker is chosen (docs/DEPLOYMENT.md):
// PostgreSQL LISTEN/NOTIFY on the shared database (the default with
// DATABASE_URL), NATS for deployments that outgrow NOTIFY, or the
// in-process broker for SQLite and single-process use. instance names this
// process on the wire; db holds the development secret (brokerSecrets).
func newBroker(ctx context.Context, cfg config.Config, db *ent.Client, instance string, log *slog.Logger) (broker.Broker, error) {
	if !cfg.Broker.CrossReplica() {
		return broker.NewMemory(broker.MemoryOptions{}), nil
	}
	secret, previous, err := brokerSecrets(ctx, cfg, db, log)
	if err != nil {
		return nil, err
	}
	opts := broker.Options{Instance: instance, Logger: log, Secret: secret, PreviousSecrets: previous}
	switch cfg.Broker.Kind {
	case config.BrokerPostgres:
		b, err := broker.NewPostgres(ctx, cfg.Database.URL, broker.PostgresOptions{Options: opts, Channel: cfg.Broker.Channel})
		if err != nil {
			return nil, fmt.Errorf("postgres broker: %w", err)
		}
		return b, nil
	default:
		b, err := broker.NewNATS(ctx, cfg.Broker.NATSURL, broker.NATSOptions{Options: opts, Subject: cfg.Broker.Channel})
		if err != nil {
			return nil, fmt.Errorf("nats broker: %w", err)
		}
		return b, nil
	}
}

// brokerSecrets returns the secret that seals the broker's frames, and the
// previous one of a rotation: RAGCHAT_BROKER_SECRET, or in development the
// secret the replicas on db agree on (internal/sharedsecret), so that
// replicas with data directories of their own still read each other's
// frames.
func brokerSecrets(ctx context.Context, cfg config.Config, db *ent.Client, log *slog.Logger) (secret []byte, previous [][]byte, err error) {
	if cfg.Broker.PreviousSecret != "" {
		previous = [][]byte{[]byte(cfg.Broker.PreviousSecret)}
	}
	switch {
	case cfg.Broker.Secret != "":
		return []byte(cfg.Broker.Secret), previous, nil
	case !cfg.IsDevelopment():
		return nil, nil, errors.New("RAGCHAT_BROKER_SECRET is not set") // config.Load refuses this already
	}
	secret, created, err := sharedsecret.Agree(ctx, db, sharedsecret.Broker)
	if err != nil {
		return nil, nil, fmt.Errorf("development broker secret: %w", err)
	}
	if created {
		log.Info("generated a development broker secret in the database; the replicas on it share it (production needs RAGCHAT_BROKER_SECRET)")
	}
	return secret, previous, nil
}
