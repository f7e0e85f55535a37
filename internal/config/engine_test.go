package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/llm/openai"
)

// TestEngineAndModelTimings: the lease, checkpoint and reaper intervals,
// the completion retry bound and the model client's timeouts and retries
// are configuration with documented defaults, and bad values — alone or in
// how they relate — are reported by name.
func TestEngineAndModelTimings(t *testing.T) {
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	defaults := []struct {
		name      string
		got, want time.Duration
	}{
		{"lease", c.Engine.LeaseDuration, 6 * time.Second},
		{"checkpoint", c.Engine.CheckpointInterval, time.Second},
		{"reaper", c.Engine.ReaperInterval, 2 * time.Second},
		{"completion retry", c.Engine.CompletionRetryTimeout, time.Minute},
		{"answer", c.Engine.AnswerTimeout, 3 * time.Minute},
		{"model timeout", c.Model.Limits.Timeout, 120 * time.Second},
		{"first token", c.Model.Limits.FirstTokenTimeout, 30 * time.Second},
		{"idle", c.Model.Limits.IdleTimeout, 30 * time.Second},
	}
	for _, d := range defaults {
		if d.got != d.want {
			t.Errorf("default %s = %s, want %s", d.name, d.got, d.want)
		}
	}
	if c.Model.Limits.MaxRetries != 2 || c.InstanceID != "" {
		t.Errorf("retries %d, instance %q", c.Model.Limits.MaxRetries, c.InstanceID)
	}

	c, err = load(map[string]string{
		"RAGCHAT_ATTEMPT_LEASE": "20s", "RAGCHAT_CHECKPOINT_INTERVAL": "2s", "RAGCHAT_REAPER_INTERVAL": "5s",
		"RAGCHAT_COMPLETION_RETRY_TIMEOUT": "90s", "RAGCHAT_MODEL_IDLE_TIMEOUT": "10s",
		"RAGCHAT_MODEL_MAX_RETRIES": "0", "RAGCHAT_INSTANCE_ID": "api-1",
	})
	if err != nil {
		t.Fatal(err)
	}
	cc := c.Engine.Chat(c.InstanceID)
	if cc.LeaseDuration != 20*time.Second || cc.CheckpointInterval != 2*time.Second || cc.ReaperInterval != 5*time.Second ||
		cc.CompletionRetryTimeout != 90*time.Second || cc.InstanceID != "api-1" {
		t.Errorf("engine config %+v", cc)
	}
	oc := c.Model.Limits.OpenAI(openai.Config{})
	if oc.IdleTimeout != 10*time.Second || oc.MaxRetries >= 0 {
		t.Errorf("0 retries must mean none: %+v", oc)
	}

	bad := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"RAGCHAT_ATTEMPT_LEASE": "0s"}, "RAGCHAT_ATTEMPT_LEASE"},
		{map[string]string{"RAGCHAT_REAPER_INTERVAL": "soon"}, "RAGCHAT_REAPER_INTERVAL"},
		{map[string]string{"RAGCHAT_COMPLETION_RETRY_TIMEOUT": "-1s"}, "RAGCHAT_COMPLETION_RETRY_TIMEOUT"},
		{map[string]string{"RAGCHAT_REAPER_INTERVAL": "10s"}, "reaper interval"},                 // not shorter than the lease
		{map[string]string{"RAGCHAT_ATTEMPT_LEASE": "2s"}, "three checkpoint intervals"},         // renewals too rare
		{map[string]string{"RAGCHAT_CHECKPOINT_INTERVAL": "1500ms"}, "two checkpoint intervals"}, // reaper too eager
		{map[string]string{"RAGCHAT_MODEL_IDLE_TIMEOUT": "5m"}, "RAGCHAT_MODEL_IDLE_TIMEOUT"},
		{map[string]string{"RAGCHAT_MODEL_FIRST_TOKEN_TIMEOUT": "3m"}, "RAGCHAT_MODEL_FIRST_TOKEN_TIMEOUT"},
		{map[string]string{"RAGCHAT_MODEL_MAX_RETRIES": "-1"}, "RAGCHAT_MODEL_MAX_RETRIES"},
	}
	for _, b := range bad {
		if _, err := load(b.env); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%v: err = %v, want it to mention %q", b.env, err, b.want)
		}
	}
	if err := (chat.Config{}).Validate(); err != nil {
		t.Errorf("the engine's defaults are invalid: %v", err)
	}
}
