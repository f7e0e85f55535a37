package config_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/config"
)

func load(env map[string]string) (config.Config, error) {
	return config.LoadFrom(func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
}

func TestDevelopmentDefaults(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"env", c.Env, config.Development},
		{"addr", c.Addr, "127.0.0.1:8080"},
		{"sqlite", c.Database.SQLitePath, "data/ragchat.db"},
		{"postgres", c.Database.URL, ""},
		{"migrate", c.Database.AutoMigrate, true},
		{"model", c.Model.OpenAI, false},
		{"introspection", c.HTTP.Introspection, true},
		{"graphiql", c.HTTP.GraphiQL, true},
		{"origins", strings.Join(c.HTTP.AllowedOrigins, ","), "http://localhost:*,http://127.0.0.1:*"},
		{"dev secret", c.Auth.DevSecretFile, "data/jwt-dev-secret"},
		{"page size", c.Limits.MaxPageSize, 100},
	}
	for _, tc := range checks {
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestProductionNeedsAKeyAndHidesIntrospection(t *testing.T) {
	if _, err := load(map[string]string{"RAGCHAT_ENV": "production"}); err == nil {
		t.Fatal("production without a JWT key source was accepted")
	}
	c, err := load(map[string]string{"RAGCHAT_ENV": "production", "RAGCHAT_JWT_JWKS_URL": "https://idp.example/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Introspection || c.HTTP.GraphiQL || len(c.HTTP.AllowedOrigins) != 0 {
		t.Fatalf("production defaults: %+v", c.HTTP)
	}
	c, err = load(map[string]string{"RAGCHAT_ENV": "production", "RAGCHAT_JWT_JWKS_URL": "https://idp.example/jwks", "RAGCHAT_INTROSPECTION": "true"})
	if err != nil || !c.HTTP.Introspection {
		t.Fatalf("introspection not configurable in production: %v %+v", err, c.HTTP)
	}
}

func TestAnyOpenAIVariableSelectsOpenAI(t *testing.T) {
	for _, v := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_CHAT_MODEL", "OPENAI_EMBEDDING_MODEL", "OPENAI_EMBEDDING_DIMENSIONS",
		"OPENAI_EMBEDDING_BASE_URL", "OPENAI_EMBEDDING_API_KEY"} {
		c, err := load(map[string]string{v: "1"})
		if err != nil || !c.Model.OpenAI {
			t.Errorf("%s set: openai=%v err=%v", v, c.Model.OpenAI, err)
		}
	}
}

func TestBadValuesAreAllReported(t *testing.T) {
	_, err := load(map[string]string{
		"RAGCHAT_ENV":                 "staging",
		"RAGCHAT_MAX_PAGE_SIZE":       "zero",
		"RAGCHAT_WS_KEEPALIVE":        "soon",
		"RAGCHAT_AUTO_MIGRATE":        "maybe",
		"RAGCHAT_JWT_HS256_SECRET":    "s",
		"RAGCHAT_JWT_JWKS_URL":        "https://idp.example/jwks",
		"RAGCHAT_ASK_RATE_PER_MINUTE": "-1",
	})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, name := range []string{"RAGCHAT_ENV", "RAGCHAT_MAX_PAGE_SIZE", "RAGCHAT_WS_KEEPALIVE", "RAGCHAT_AUTO_MIGRATE", "only one of", "RAGCHAT_ASK_RATE_PER_MINUTE"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not mention %s: %v", name, err)
		}
	}
}

func TestParsedValues(t *testing.T) {
	c, err := load(map[string]string{
		"DATABASE_URL":                "postgres://u:pw@db:5432/rc",
		"RAGCHAT_OFFLINE_TOKEN_DELAY": "-1ms",
		"RAGCHAT_ALLOWED_ORIGINS":     "https://app.example, https://*.example.org ,",
		"RAGCHAT_SHUTDOWN_TIMEOUT":    "45s",
		"RAGCHAT_AUTO_MIGRATE":        "off",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.OfflineTokenDelay != -time.Millisecond || c.HTTP.ShutdownTimeout != 45*time.Second || c.Database.AutoMigrate {
		t.Fatalf("%+v %+v", c.Model, c.HTTP)
	}
	if strings.Join(c.HTTP.AllowedOrigins, "|") != "https://app.example|https://*.example.org" {
		t.Fatalf("origins %q", c.HTTP.AllowedOrigins)
	}
}

// TestSummaryHasNoSecrets checks the startup summary masks the database
// password and never prints keys.
func TestSummaryHasNoSecrets(t *testing.T) {
	c, err := load(map[string]string{
		"DATABASE_URL":             "postgres://u:hunter2@db:5432/rc",
		"OPENAI_API_KEY":           "sk-verysecret",
		"RAGCHAT_JWT_HS256_SECRET": "jwt-shared-secret-0123456789abcdef0123",
		"RAGCHAT_BROKER_SECRET":    "broker-shared-secret-0123456789abcdef",
	})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, a := range c.Summary() {
		all.WriteString(a.String() + " ")
	}
	for _, secret := range []string{"hunter2", "sk-verysecret", "jwt-shared-secret", "broker-shared-secret"} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("summary leaks %q: %s", secret, all.String())
		}
	}
	if !strings.Contains(all.String(), "api key set") || !strings.Contains(all.String(), "db:5432") {
		t.Errorf("summary lacks facts: %s", all.String())
	}
}

// TestBrokerSelection: the broker follows the database unless chosen, and
// a choice that cannot work is refused at start.
func TestBrokerSelection(t *testing.T) {
	const db = "postgres://u@db.example/ragchat"
	cases := []struct {
		name string
		env  map[string]string
		want string // the broker, or "" for a refusal
	}{
		{"SQLite: in-process", nil, config.BrokerMemory},
		{"PostgreSQL: NOTIFY by default", map[string]string{"DATABASE_URL": db}, config.BrokerPostgres},
		{"PostgreSQL, memory chosen", map[string]string{"DATABASE_URL": db, "RAGCHAT_BROKER": "memory"}, config.BrokerMemory},
		{"NATS", map[string]string{"DATABASE_URL": db, "RAGCHAT_BROKER": "NATS", "RAGCHAT_NATS_URL": "nats://nats.example:4222"}, config.BrokerNATS},
		{"NATS without a URL", map[string]string{"DATABASE_URL": db, "RAGCHAT_BROKER": "nats"}, ""},
		{"postgres without a database", map[string]string{"RAGCHAT_BROKER": "postgres"}, ""},
		{"unknown broker", map[string]string{"DATABASE_URL": db, "RAGCHAT_BROKER": "kafka"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(tc.env)
			switch {
			case tc.want == "" && err == nil:
				t.Fatalf("accepted broker %q", c.Broker.Kind)
			case tc.want == "":
				if !strings.Contains(err.Error(), "RAGCHAT_") {
					t.Fatalf("the error does not name the variable: %v", err)
				}
			case err != nil:
				t.Fatal(err)
			case c.Broker.Kind != tc.want:
				t.Fatalf("broker %q, want %q", c.Broker.Kind, tc.want)
			}
		})
	}
}

// TestBrokerSecret: the secret that seals broker frames is required in
// production whenever events travel between replicas, must be long enough
// when set, and defaults to a generated file in development.
func TestBrokerSecret(t *testing.T) {
	const (
		db     = "postgres://u@db.example/ragchat"
		secret = "0123456789abcdef0123456789abcdef"
	)
	prod := func(kv ...string) map[string]string {
		env := map[string]string{"RAGCHAT_ENV": "production", "RAGCHAT_JWT_JWKS_URL": "https://idp.example/jwks", "DATABASE_URL": db}
		for i := 0; i < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return env
	}
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string // a substring of the error, or "" for none
		want    config.Broker
	}{
		{"production, postgres by default, no secret", prod(), "RAGCHAT_BROKER_SECRET", config.Broker{}},
		{"production, nats, no secret", prod("RAGCHAT_BROKER", "nats", "RAGCHAT_NATS_URL", "nats://n:4222"), "RAGCHAT_BROKER_SECRET", config.Broker{}},
		{"production, memory, no secret", prod("RAGCHAT_BROKER", "memory"), "", config.Broker{Kind: config.BrokerMemory}},
		{"production, postgres, secret", prod("RAGCHAT_BROKER_SECRET", secret), "",
			config.Broker{Kind: config.BrokerPostgres, Secret: secret}},
		{"production, a rotation", prod("RAGCHAT_BROKER_SECRET", secret, "RAGCHAT_BROKER_SECRET_PREVIOUS", secret+"-old"), "",
			config.Broker{Kind: config.BrokerPostgres, Secret: secret, PreviousSecret: secret + "-old"}},
		{"a short secret", prod("RAGCHAT_BROKER_SECRET", "short"), "RAGCHAT_BROKER_SECRET: want at least 32", config.Broker{}},
		{"a short secret, in development too", map[string]string{"DATABASE_URL": db, "RAGCHAT_BROKER_SECRET": "short"},
			"RAGCHAT_BROKER_SECRET: want at least 32", config.Broker{}},
		{"a short previous secret", prod("RAGCHAT_BROKER_SECRET", secret, "RAGCHAT_BROKER_SECRET_PREVIOUS", "old"),
			"RAGCHAT_BROKER_SECRET_PREVIOUS: want at least 32", config.Broker{}},
		{"a previous secret alone", map[string]string{"DATABASE_URL": db, "RAGCHAT_BROKER_SECRET_PREVIOUS": secret},
			"RAGCHAT_BROKER_SECRET_PREVIOUS needs RAGCHAT_BROKER_SECRET", config.Broker{}},
		{"development, postgres, no secret: one agreed on in the database", map[string]string{"DATABASE_URL": db}, "",
			config.Broker{Kind: config.BrokerPostgres}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(tc.env)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got := c.Broker; got != tc.want {
				t.Fatalf("broker %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPersistedOperations reads the persisted operations settings: off by
// default, and persisted-only mode refused without a manifest.
func TestPersistedOperations(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.PersistedOnly || c.Limits.PersistedManifest != "" || c.Limits.PersistedQueriesMax != 10000 {
		t.Fatalf("defaults: %+v", c.Limits)
	}
	c, err = load(map[string]string{"RAGCHAT_PERSISTED_ONLY": "true", "RAGCHAT_PERSISTED_MANIFEST": "/m.json", "RAGCHAT_PERSISTED_QUERIES_MAX": "50"})
	if err != nil || !c.Limits.PersistedOnly || c.Limits.PersistedManifest != "/m.json" || c.Limits.PersistedQueriesMax != 50 {
		t.Fatalf("set: %+v %v", c.Limits, err)
	}
	if _, err := load(map[string]string{"RAGCHAT_PERSISTED_ONLY": "true"}); err == nil || !strings.Contains(err.Error(), "RAGCHAT_PERSISTED_ONLY") {
		t.Fatalf("only-mode without a manifest: %v", err)
	}
}
