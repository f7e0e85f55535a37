package config_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/admission"
	"github.com/ragchat/ragchat/internal/config"
)

// TestAdmissionSettings: RAGCHAT_MAX_RUNNING_ANSWERS, RAGCHAT_ANSWER_QUEUE
// and RAGCHAT_ANSWER_QUEUE_WAIT reach the engine's admission gate, with
// defaults derived from GOMAXPROCS, 0 turning the bound off, and a bad
// value reported by name.
func TestAdmissionSettings(t *testing.T) {
	def := config.DefaultRunningAnswersPerCPU * runtime.GOMAXPROCS(0)
	tests := []struct {
		name    string
		env     map[string]string
		want    admission.Config
		wantErr string
	}{
		{"defaults", nil, admission.Config{Limit: def, Queue: def, MaxWait: admission.DefaultMaxWait}, ""},
		{"set", map[string]string{"RAGCHAT_MAX_RUNNING_ANSWERS": "8", "RAGCHAT_ANSWER_QUEUE": "3", "RAGCHAT_ANSWER_QUEUE_WAIT": "2s"},
			admission.Config{Limit: 8, Queue: 3, MaxWait: 2 * time.Second}, ""},
		{"queue follows the bound", map[string]string{"RAGCHAT_MAX_RUNNING_ANSWERS": "8"},
			admission.Config{Limit: 8, Queue: 8, MaxWait: admission.DefaultMaxWait}, ""},
		{"off", map[string]string{"RAGCHAT_MAX_RUNNING_ANSWERS": "0"}, admission.Config{Limit: 0, Queue: 0, MaxWait: admission.DefaultMaxWait}, ""},
		{"negative", map[string]string{"RAGCHAT_MAX_RUNNING_ANSWERS": "-1"}, admission.Config{}, "RAGCHAT_MAX_RUNNING_ANSWERS"},
		{"bad wait", map[string]string{"RAGCHAT_ANSWER_QUEUE_WAIT": "soon"}, admission.Config{}, "RAGCHAT_ANSWER_QUEUE_WAIT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error naming %s, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Engine.Chat("x").Admission; got != tt.want {
				t.Fatalf("admission %+v, want %+v", got, tt.want)
			}
		})
	}
}
