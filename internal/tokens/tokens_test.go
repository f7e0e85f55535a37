package tokens_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/tokens"
)

func TestForModelPicksEncoding(t *testing.T) {
	tests := []struct {
		model string
		want  string
	}{
		{"gpt-4o", "tiktoken/o200k_base"},
		{"gpt-4o-mini", "tiktoken/o200k_base"},
		{"GPT-4o-2024-08-06", "tiktoken/o200k_base"},
		{"openai/gpt-4o", "tiktoken/o200k_base"},
		{"gpt-4.1-nano", "tiktoken/o200k_base"},
		{"gpt-5", "tiktoken/o200k_base"},
		{"o1-mini", "tiktoken/o200k_base"},
		{"o3", "tiktoken/o200k_base"},
		{"o4-mini", "tiktoken/o200k_base"},
		{"gpt-4", "tiktoken/cl100k_base"},
		{"gpt-4-turbo", "tiktoken/cl100k_base"},
		{"gpt-3.5-turbo", "tiktoken/cl100k_base"},
		{"text-embedding-3-small", "tiktoken/cl100k_base"},
		{"qwen2.5:7b-instruct", tokens.EstimatorName},
		{"Qwen/Qwen2.5-7B-Instruct", tokens.EstimatorName},
		{"bge-m3", tokens.EstimatorName},
		{"offline-echo", tokens.EstimatorName},
		{"", tokens.EstimatorName},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			assert.Equal(t, tt.want, tokens.ForModel(tt.model).Name())
		})
	}
}

func TestDefaultIsCL100K(t *testing.T) {
	assert.Equal(t, "tiktoken/cl100k_base", tokens.Default().Name())
}

func TestExactCounts(t *testing.T) {
	tests := []struct {
		encoding string
		text     string
		want     int
	}{
		{tokens.CL100KBase, "", 0},
		{tokens.CL100KBase, "hello world", 2},
		{tokens.O200KBase, "hello world", 2},
		// Special-token text is ordinary text, not a control token, and
		// must not panic.
		{tokens.CL100KBase, "<|endoftext|>", 7},
	}
	for _, tt := range tests {
		t.Run(tt.encoding+"/"+tt.text, func(t *testing.T) {
			c, err := tokens.Encoding(tt.encoding)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.Count(tt.text))
		})
	}
}

func TestEncodingUnknown(t *testing.T) {
	_, err := tokens.Encoding("p50k_base")
	assert.Error(t, err)
}

// TestEncodingLoadedOnce checks that concurrent first uses share one
// loaded encoding (run with -race).
func TestEncodingLoadedOnce(t *testing.T) {
	const n = 8
	got := make([]tokens.Counter, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = tokens.ForModel("o3-mini")
			got[i].Count("warm up 你好")
		}()
	}
	wg.Wait()
	for _, c := range got[1:] {
		assert.Same(t, got[0], c)
	}
}
