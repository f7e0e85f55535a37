package tokens_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/internal/tokens"
)

func TestLookupModel(t *testing.T) {
	env := map[string]int{"qwen2.5": 8192, "my-finetune": 4096}
	tenant := map[string]int{"qwen2.5:7b": 4096}
	tests := []struct {
		model     string
		overrides []map[string]int
		window    int
		source    string
		counter   string
	}{
		{"gpt-4o", nil, 128000, tokens.WindowBuiltin, "tiktoken/o200k_base"},
		{"gpt-4o-mini", nil, 128000, tokens.WindowBuiltin, "tiktoken/o200k_base"},
		{"openai/GPT-4o-2024-08-06", nil, 128000, tokens.WindowBuiltin, "tiktoken/o200k_base"},
		{"gpt-4.1-mini", nil, 1047576, tokens.WindowBuiltin, "tiktoken/o200k_base"},
		{"gpt-4", nil, 8192, tokens.WindowBuiltin, "tiktoken/cl100k_base"},
		{"gpt-4-turbo", nil, 128000, tokens.WindowBuiltin, "tiktoken/cl100k_base"},
		{"gpt-3.5-turbo", nil, 16385, tokens.WindowBuiltin, "tiktoken/cl100k_base"},
		{"o1-mini", nil, 128000, tokens.WindowBuiltin, "tiktoken/o200k_base"},
		{"o3-mini", nil, 200000, tokens.WindowBuiltin, "tiktoken/o200k_base"},
		{"o4-mini", nil, 200000, tokens.WindowBuiltin, "tiktoken/o200k_base"},
		{"llama3.1:8b", nil, 131072, tokens.WindowBuiltin, tokens.EstimatorName},
		{"meta-llama/Llama-3.1-8B-Instruct", nil, 131072, tokens.WindowBuiltin, tokens.EstimatorName},
		{"llama3:8b", nil, 8192, tokens.WindowBuiltin, tokens.EstimatorName},
		{"Qwen/Qwen2.5-7B-Instruct", nil, 32768, tokens.WindowBuiltin, tokens.EstimatorName},
		{"mistral:7b", nil, 32768, tokens.WindowBuiltin, tokens.EstimatorName},
		{"mistral-nemo", nil, 131072, tokens.WindowBuiltin, tokens.EstimatorName},
		{"mixtral:8x7b", nil, 32768, tokens.WindowBuiltin, tokens.EstimatorName},
		{"offline-extractive-1", nil, 8192, tokens.WindowBuiltin, tokens.EstimatorName},
		{"some-unknown-model", nil, tokens.DefaultWindow, tokens.WindowDefault, tokens.EstimatorName},
		// The server's overrides, then the tenant's, which win.
		{"qwen2.5:14b", []map[string]int{env}, 8192, tokens.WindowConfig, tokens.EstimatorName},
		{"qwen2.5:7b", []map[string]int{env, tenant}, 4096, tokens.WindowConfig, tokens.EstimatorName},
		{"qwen2.5:14b", []map[string]int{env, tenant}, 8192, tokens.WindowConfig, tokens.EstimatorName},
		{"my-finetune", []map[string]int{env, nil}, 4096, tokens.WindowConfig, tokens.EstimatorName},
		{"gpt-4o", []map[string]int{env, tenant}, 128000, tokens.WindowBuiltin, "tiktoken/o200k_base"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			info := tokens.LookupModel(tt.model, tt.overrides...)
			assert.Equal(t, tt.window, info.Window)
			assert.Equal(t, tt.source, info.WindowSource)
			assert.Equal(t, tt.counter, info.Counter.Name())
			assert.Equal(t, tt.model, info.Name)
		})
	}
}

func TestParseWindows(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]int
		wantErr bool
	}{
		{"", map[string]int{}, false},
		{"qwen2.5=8192", map[string]int{"qwen2.5": 8192}, false},
		{" llama3.1:8b = 4096 , gpt-4o=128000,", map[string]int{"llama3.1:8b": 4096, "gpt-4o": 128000}, false},
		{"qwen2.5", nil, true},
		{"=4096", nil, true},
		{"qwen2.5=lots", nil, true},
		{"tiny=100", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := tokens.ParseWindows(tt.in)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			back, err := tokens.ParseWindows(tokens.FormatWindows(got))
			require.NoError(t, err)
			assert.Equal(t, got, back)
		})
	}
}
