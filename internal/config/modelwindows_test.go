package config_test

import (
	"strings"
	"testing"
)

// TestModelWindows: RAGCHAT_MODEL_WINDOWS reaches the engine's model
// registry overrides, and a bad value is reported by name.
func TestModelWindows(t *testing.T) {
	tests := []struct {
		value   string
		want    map[string]int
		wantErr bool
	}{
		{"", nil, false},
		{"qwen2.5=8192, llama3.1:8b=4096", map[string]int{"qwen2.5": 8192, "llama3.1:8b": 4096}, false},
		{"qwen2.5", nil, true},
		{"qwen2.5=12", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			c, err := load(map[string]string{"RAGCHAT_MODEL_WINDOWS": tt.value})
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "RAGCHAT_MODEL_WINDOWS") {
					t.Fatalf("want an error naming RAGCHAT_MODEL_WINDOWS, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := c.Engine.Chat("x").ModelWindows
			if len(got) != len(tt.want) {
				t.Fatalf("windows %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("window of %s = %d, want %d", k, got[k], v)
				}
			}
		})
	}
}
