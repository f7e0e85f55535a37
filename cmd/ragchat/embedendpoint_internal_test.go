package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/config"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/llmfake"
)

// TestEmbeddingEndpointFromTheEnvironment: with OPENAI_EMBEDDING_BASE_URL
// and OPENAI_EMBEDDING_API_KEY, the server's model sends its chat requests
// to OPENAI_BASE_URL with OPENAI_API_KEY and its embeddings to the other
// endpoint with the other key, and neither key reaches the other endpoint.
func TestEmbeddingEndpointFromTheEnvironment(t *testing.T) {
	t.Parallel()
	chat, embed := llmfake.New(), llmfake.New()
	t.Cleanup(chat.Close)
	t.Cleanup(embed.Close)
	const chatKey, embedKey = "sk-chat-provider-0123", "sk-embedding-provider-4567"
	env := map[string]string{
		"OPENAI_BASE_URL": chat.URL, "OPENAI_API_KEY": chatKey, "OPENAI_CHAT_MODEL": "chat-model",
		"OPENAI_EMBEDDING_BASE_URL": embed.URL, "OPENAI_EMBEDDING_API_KEY": embedKey, "OPENAI_EMBEDDING_MODEL": "embed-model",
	}
	cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	m, err := newModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := m.Embed(ctx, []string{"hello"}); err != nil {
		t.Fatalf("embed: %v", err)
	}
	s, err := m.ChatStream(ctx, llm.ChatRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	for {
		if _, err := s.Recv(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	for _, c := range []struct {
		name      string
		srv       *llmfake.Server
		path, key string
		model     string
	}{{"chat", chat, "/v1/chat/completions", chatKey, "chat-model"}, {"embeddings", embed, "/v1/embeddings", embedKey, "embed-model"}} {
		reqs := c.srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("the %s endpoint saw %d requests, want 1", c.name, len(reqs))
		}
		r := reqs[0]
		if r.Path != c.path || r.Header.Get("Authorization") != "Bearer "+c.key {
			t.Errorf("the %s endpoint saw %s with Authorization %q, want %s with its own key", c.name, r.Path, r.Header.Get("Authorization"), c.path)
		}
		if want := `"model":"` + c.model + `"`; !strings.Contains(string(r.Body), want) {
			t.Errorf("the %s request %s does not name %s", c.name, r.Body, c.model)
		}
	}
}
