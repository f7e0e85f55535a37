package openai_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ragchat/ragchat/internal/llm/llmfake"
	"github.com/ragchat/ragchat/internal/llm/openai"
)

// TestEmbeddingEndpoint: embeddings go to EmbeddingBaseURL with
// EmbeddingAPIKey and chat to BaseURL with APIKey, each key only to its
// own endpoint; without an embedding endpoint, embeddings share the chat
// endpoint (with EmbeddingAPIKey when set).
func TestEmbeddingEndpoint(t *testing.T) {
	t.Parallel()
	const chatKey, embedKey = "sk-chat-0123456789", "sk-embed-9876543210"
	cases := []struct {
		name string
		// embedURL: "" none, "chat" the chat server's URL with a slash
		// added, "other" the second server.
		embedURL, embedKey string
		// where the embeddings go ("chat" or "other") and the key they
		// carry ("" for none).
		wantServer, wantKey string
	}{
		{"another endpoint with its own key", "other", embedKey, "other", embedKey},
		{"another endpoint without a key", "other", "", "other", ""},
		{"the chat endpoint with a key of its own", "chat", embedKey, "chat", embedKey},
		{"no embedding endpoint, a key of its own", "", embedKey, "chat", embedKey},
		{"nothing set: the chat endpoint and key", "", "", "chat", chatKey},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			servers := map[string]*llmfake.Server{"chat": llmfake.New(), "other": llmfake.New()}
			tr := &http.Transport{}
			t.Cleanup(func() {
				servers["chat"].Close()
				servers["other"].Close()
				tr.CloseIdleConnections()
			})
			cfg := openai.Config{
				BaseURL: servers["chat"].URL, APIKey: chatKey, ChatModel: "fake-chat", EmbeddingModel: "fake-embed",
				EmbeddingAPIKey: tc.embedKey, HTTPClient: &http.Client{Transport: tr}, FirstTokenTimeout: guard, Timeout: 3 * guard,
			}
			switch tc.embedURL {
			case "chat":
				cfg.EmbeddingBaseURL = servers["chat"].URL + "/"
			case "other":
				cfg.EmbeddingBaseURL = servers["other"].URL
			}
			m, err := openai.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			if _, err := m.Embed(ctx, []string{"a", "b"}); err != nil {
				t.Fatalf("embed: %v", err)
			}
			s, err := m.ChatStream(ctx, userPrompt("hi"))
			if err != nil {
				t.Fatalf("chat: %v", err)
			}
			if _, err := readAll(s); err != nil {
				t.Fatal(err)
			}
			s.Close()

			wantAuth := map[string]string{"/v1/chat/completions": "Bearer " + chatKey, "/v1/embeddings": ""}
			if tc.wantKey != "" {
				wantAuth["/v1/embeddings"] = "Bearer " + tc.wantKey
			}
			seen := map[string]string{}
			for name, srv := range servers {
				for _, r := range srv.Requests() {
					seen[r.Path] = name
					auth := strings.TrimSpace(r.Header.Get("Authorization"))
					if want := wantAuth[r.Path]; auth != want {
						t.Errorf("%s server: %s with Authorization %q, want %q", name, r.Path, auth, want)
					}
					if r.Path == "/v1/embeddings" && name != tc.wantServer {
						t.Errorf("the embeddings went to the %s server, want the %s one", name, tc.wantServer)
					}
					if r.Path == "/v1/chat/completions" && name != "chat" {
						t.Errorf("the chat request went to the %s server", name)
					}
				}
			}
			if seen["/v1/embeddings"] == "" || seen["/v1/chat/completions"] == "" {
				t.Fatalf("requests seen: %v, want an embeddings and a chat request", seen)
			}
			if tc.wantServer == "other" && len(servers["other"].Requests()) != 1 {
				t.Errorf("the embeddings server saw %d requests, want the one embeddings request", len(servers["other"].Requests()))
			}

			base, key := cfg.EmbeddingEndpoint()
			if key != tc.wantKey || strings.TrimRight(base, "/") != servers[tc.wantServer].URL {
				t.Errorf("EmbeddingEndpoint() = %q, %q; want the %s server and %q", base, key, tc.wantServer, tc.wantKey)
			}
		})
	}
}

// TestEmbeddingEndpointDefaults: with no BaseURL the chat endpoint is
// OpenAI's, and an embedding endpoint elsewhere never gets the chat key.
func TestEmbeddingEndpointDefaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg       openai.Config
		base, key string
	}{
		{openai.Config{APIKey: "k"}, openai.DefaultBaseURL, "k"},
		{openai.Config{APIKey: "k", EmbeddingBaseURL: openai.DefaultBaseURL + "/"}, openai.DefaultBaseURL, "k"},
		{openai.Config{APIKey: "k", EmbeddingBaseURL: "http://ollama:11434/v1"}, "http://ollama:11434/v1", ""},
		{openai.Config{APIKey: "k", EmbeddingBaseURL: "http://tei:80/v1", EmbeddingAPIKey: "e"}, "http://tei:80/v1", "e"},
	}
	for _, tc := range cases {
		if base, key := tc.cfg.EmbeddingEndpoint(); base != tc.base || key != tc.key {
			t.Errorf("%+v: EmbeddingEndpoint() = %q, %q; want %q, %q", tc.cfg, base, key, tc.base, tc.key)
		}
	}
}
