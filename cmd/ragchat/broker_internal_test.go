package main

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/broker"
	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/testdb"
)

// loadConfig loads vars as the environment.
func loadConfig(t *testing.T, vars map[string]string) config.Config {
	t.Helper()
	cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// openConfigDB opens (and migrates) cfg's database until the test ends.
func openConfigDB(t *testing.T, cfg config.Config) *store.DB {
	t.Helper()
	db, err := openDB(context.Background(), cfg, slog.New(slog.DiscardHandler), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestBrokerSecrets: RAGCHAT_BROKER_SECRET wins; in development without
// it, every replica on the database gets the one secret agreed on there,
// whatever its data directory, and keeps it across restarts; production
// without it is refused.
func TestBrokerSecrets(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	dbURL := testdb.PostgresURL(t)
	load := func(t *testing.T, vars map[string]string) config.Config {
		vars["RAGCHAT_DATA_DIR"] = t.TempDir()
		vars["DATABASE_URL"] = dbURL
		return loadConfig(t, vars)
	}
	db := openConfigDB(t, load(t, map[string]string{}))

	const set = "0123456789abcdef0123456789abcdef-set"
	secret, previous, err := brokerSecrets(ctx, load(t, map[string]string{
		"RAGCHAT_BROKER_SECRET": set, "RAGCHAT_BROKER_SECRET_PREVIOUS": set + "-old",
	}), db.Client, log)
	if err != nil || string(secret) != set || len(previous) != 1 || string(previous[0]) != set+"-old" {
		t.Fatalf("configured secrets: %q %q %v", secret, previous, err)
	}

	first, _, err := brokerSecrets(ctx, load(t, map[string]string{}), db.Client, log)
	if err != nil || len(first) < broker.MinSecretLen {
		t.Fatalf("generated secret %q: %v", first, err)
	}
	// Another replica: another data directory, another connection.
	other := load(t, map[string]string{})
	again, _, err := brokerSecrets(ctx, other, openConfigDB(t, other).Client, log)
	if err != nil || string(again) != string(first) {
		t.Fatalf("another replica gets %q, want %q (%v)", again, first, err)
	}

	prod := load(t, map[string]string{"RAGCHAT_BROKER_SECRET": set})
	prod.Env, prod.Broker.Secret = config.Production, ""
	if _, _, err := brokerSecrets(ctx, prod, db.Client, log); err == nil {
		t.Fatal("production without RAGCHAT_BROKER_SECRET was accepted")
	}
}

// TestDevelopmentReplicasShareFrames: two replicas in development on one
// PostgreSQL database, each with a data directory of its own and without
// RAGCHAT_BROKER_SECRET, start together and take each other's frames:
// events published on one reach the other's subscribers live, and neither
// rejects a frame. (Before the secret was agreed on in the database, each
// generated its own in its data directory and dropped the other's frames.)
func TestDevelopmentReplicasShareFrames(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	dbURL := testdb.PostgresURL(t)
	cfgs := make([]config.Config, 2)
	dbs := make([]*store.DB, 2)
	for i := range cfgs {
		cfgs[i] = loadConfig(t, map[string]string{"DATABASE_URL": dbURL, "RAGCHAT_DATA_DIR": t.TempDir()})
		if !cfgs[i].IsDevelopment() || cfgs[i].Broker.Kind != config.BrokerPostgres || cfgs[i].Broker.Secret != "" {
			t.Fatalf("config %+v: want development, the postgres broker, no secret", cfgs[i].Broker)
		}
		dbs[i] = openConfigDB(t, cfgs[i])
	}
	brokers := make([]*broker.Distributed, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range brokers {
		wg.Add(1)
		go func() { // both start at once
			defer wg.Done()
			b, err := newBroker(ctx, cfgs[i], dbs[i].Client, []string{"replica-a", "replica-b"}[i], log)
			if err == nil {
				brokers[i] = b.(*broker.Distributed)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		t.Cleanup(func() { _ = brokers[i].Close() })
	}

	for from, to := range []int{1, 0} {
		topic := []string{"attempt:from-a", "attempt:from-b"}[from]
		sub, err := brokers[to].Subscribe(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := brokers[from].Publish(ctx, broker.Event{Topic: topic, Kind: "DELTA", Seq: 1}); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-sub.C():
			if ev.Kind != "DELTA" || ev.Seq != 1 {
				t.Fatalf("replica %d received %+v", to, ev)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("replica %d never received replica %d's event (rejected frames: %d)", to, from, brokers[to].Stats().RejectedFrames)
		}
		sub.Close()
	}
	for i, b := range brokers {
		if n := b.Stats().RejectedFrames; n != 0 {
			t.Errorf("replica %d rejected %d frames of the other", i, n)
		}
	}
}
