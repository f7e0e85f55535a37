package server_test

import (
	"reflect"
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/server/servertest"
)

// manifestQuery reads an attempt's promptTokens and its manifest's rules,
// trimmed chunks, framing and budget.
const manifestQuery = `query($a: ID!) { attempt(id: $a) { promptTokens }
	attemptDiagnostics(id: $a) { contextManifest { chunkIds trimmedChunkIds rules budget window answerReserve
	tokens { framing total } limits { framing total } } } }`

type manifestView struct {
	Attempt            struct{ PromptTokens int }
	AttemptDiagnostics struct {
		ContextManifest struct {
			ChunkIds, TrimmedChunkIds []string
			Rules                     string
			Budget, Window            int
			AnswerReserve             int
			Tokens, Limits            struct{ Framing, Total int }
		}
	}
}

// TestManifestReportsRulesFramingAndTrimming: the context manifest, as an
// admin reads it through the API, says which form of the rules the prompt
// carried, which chunk was trimmed to fit and what the chat template's
// framing cost, and its total is the attempt's promptTokens, within the
// budget: on a 2,048-token window whose ratios leave evidence less than
// the top chunk (compact rules, the top chunk trimmed), and with the
// defaults (full rules, nothing trimmed, an empty list rather than null).
func TestManifestReportsRulesFramingAndTrimming(t *testing.T) {
	eachBackend(t, servertest.Options{}, func(t *testing.T, h *servertest.Harness) {
		alice, admin := h.Client(t, "alice"), h.Client(t, "root", "admin")
		read := func(t *testing.T) manifestView {
			t.Helper()
			conv := createConversation(t, alice)
			a := ask(t, alice, conv, "上传文件最大是多少？")
			waitDone(t, alice, a)
			var own, diag manifestView
			mustDo(t, alice, `query($a: ID!) { attempt(id: $a) { promptTokens } }`, map[string]any{"a": a}, &own)
			mustDo(t, admin, manifestQuery, map[string]any{"a": a}, &diag)
			diag.Attempt = own.Attempt
			m := diag.AttemptDiagnostics.ContextManifest
			if m.Tokens.Framing != 16 || m.Tokens.Total != own.Attempt.PromptTokens || m.Tokens.Total > m.Budget ||
				m.Limits.Framing != 0 || m.Limits.Total != m.Budget || len(m.ChunkIds) == 0 {
				t.Fatalf("framing counted, total = promptTokens ≤ budget: %+v, promptTokens %d", m, own.Attempt.PromptTokens)
			}
			return diag
		}

		m := read(t).AttemptDiagnostics.ContextManifest
		if m.Rules != "full" || m.TrimmedChunkIds == nil || len(m.TrimmedChunkIds) != 0 || m.Budget != 6000 {
			t.Fatalf("defaults: full rules, nothing trimmed: %+v", m)
		}

		h.SetTenantSettings(t, "demo", func(s *domain.TenantSettings) {
			s.ModelContextWindows = map[string]int{offline.ChatModel: 2048}
			s.BudgetRatios.EvidenceFloor, s.BudgetRatios.EvidenceCap = 0.05, 0.05
		})
		m = read(t).AttemptDiagnostics.ContextManifest
		if m.Rules != "compact" || m.Window != 2048 || m.AnswerReserve != 512 || m.Budget != 2048-512 {
			t.Fatalf("a 2,048-token window: compact rules, a quarter of it reserved: %+v", m)
		}
		if len(m.ChunkIds) != 1 || !reflect.DeepEqual(m.TrimmedChunkIds, m.ChunkIds) {
			t.Fatalf("the top chunk is trimmed to fit, not dropped: %+v", m)
		}
	})
}
