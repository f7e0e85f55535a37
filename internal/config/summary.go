package config

import (
	"log/slog"
	"strings"

	"github.com/ragchat/ragchat/internal/llm/openai"
	"github.com/ragchat/ragchat/internal/store"
)

// Summary describes c for the startup log. It never contains a secret: the
// database password is masked and keys are reported only as present.
func (c Config) Summary() []slog.Attr {
	db := "sqlite " + c.Database.SQLitePath
	if c.Database.URL != "" {
		db = "postgres " + store.RedactedURL(c.Database.URL)
	}
	model := "offline"
	if c.Model.OpenAI {
		oc := c.Model.OpenAIConfig()
		model = "openai " + endpointForLog(orDefault(oc.BaseURL, openai.DefaultBaseURL)) +
			" chat=" + orDefault(oc.ChatModel, "default") + keySet(oc.APIKey)
		base, key := oc.EmbeddingEndpoint()
		model += " embedding=" + orDefault(oc.EmbeddingModel, "default") + " at " + endpointForLog(base) + keySet(key)
	}
	return []slog.Attr{
		slog.String("env", c.Env),
		slog.String("addr", c.Addr),
		slog.String("database", db),
		slog.Bool("auto_migrate", c.Database.AutoMigrate),
		slog.String("broker", c.Broker.Kind),
		slog.String("broker_secret", c.brokerSecretSource()),
		slog.String("model", model),
		slog.String("jwt", c.authSource()),
		slog.String("allowed_origins", strings.Join(c.HTTP.AllowedOrigins, ",")),
		slog.Int("trusted_proxies", len(c.HTTP.TrustedProxies)),
		slog.Bool("introspection", c.HTTP.Introspection),
		slog.Bool("graphiql", c.HTTP.GraphiQL),
		slog.Bool("metrics", c.HTTP.Metrics),
		slog.Bool("load_demo", c.LoadDemo),
		slog.String("instance", orDefault(c.InstanceID, "persisted in "+c.DataDir)),
		slog.String("attempt_lease", c.Engine.LeaseDuration.String()),
		slog.String("reaper_interval", c.Engine.ReaperInterval.String()),
	}
}

// authSource names the JWT key source without revealing it.
func (c Config) authSource() string {
	switch {
	case c.Auth.PublicKeyPEM != "":
		return "public key (RS256/ES256)"
	case c.Auth.JWKSURL != "":
		return "JWKS " + c.Auth.JWKSURL
	case c.Auth.HS256Secret != "":
		return "HS256 shared secret"
	default:
		return "HS256 development secret in " + c.Auth.DevSecretFile
	}
}

// brokerSecretSource says where the broker secret comes from without
// revealing it.
func (c Config) brokerSecretSource() string {
	switch {
	case !c.Broker.CrossReplica():
		return "unused"
	case c.Broker.Secret != "" && c.Broker.PreviousSecret != "":
		return "RAGCHAT_BROKER_SECRET, and RAGCHAT_BROKER_SECRET_PREVIOUS accepted"
	case c.Broker.Secret != "":
		return "RAGCHAT_BROKER_SECRET"
	default:
		return "development secret shared through the database"
	}
}

// keySet says whether a key is set, never what it is.
func keySet(key string) string {
	if key == "" {
		return " (no api key)"
	}
	return " (api key set)"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
