package history

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/prompt"
)

// recordingEmbedder records the size of every embedding call and fails
// them all when fail is set.
type recordingEmbedder struct {
	llm.Model
	fail  bool
	calls []int
}

func (m *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m.calls = append(m.calls, len(texts))
	if m.fail {
		return nil, errors.New("embedding unavailable")
	}
	return m.Model.Embed(ctx, texts)
}

// TestRoundScorer: the rewrite's ranking of the older candidates and the
// prompt's choice share one score and one embedding of the rounds
// (docs/ENGINE.md, "History strategies"); the ranking is best first, at
// most the limit, with no score bound. When embedding fails, shared
// terms and citations still rank, and nothing more is embedded.
func TestRoundScorer(t *testing.T) {
	const followUp = "那 VPN 的 VPN_DEVICE_LIMIT 是什么意思？"
	rounds := []prompt.Round{
		{UserSeq: 1, User: "一个VPN账号最多可以注册几台设备？", Assistant: "最多 3 台，第 4 台报 VPN_DEVICE_LIMIT。"},
		{UserSeq: 3, User: "VPN 客户端在哪里下载？", Assistant: "在自助门户下载。"},
		{UserSeq: 5, User: "出差住酒店每晚可以报销多少钱？", Assistant: "一线城市 600 元。"},
		{UserSeq: 7, User: "出差的餐补每天多少钱？", Assistant: "每天 100 元。"},
		{UserSeq: 9, User: "逾期提交报销单会返回什么错误码？", Assistant: "EXP_SUBMISSION_OVERDUE。"},
	}
	w := window{
		plan:   windowPlan{strategy: domain.StrategyPrioritized, verbatim: 2},
		rounds: rounds, recent: rounds[3:],
		cited: map[int64]bool{1: true, 3: true, 5: true, 7: true, 9: true},
	}
	seqs := func(rs []prompt.Round) []int64 {
		var out []int64
		for _, r := range rs {
			out = append(out, r.UserSeq)
		}
		return out
	}
	tests := []struct {
		name    string
		fail    bool
		earlier []int64 // rankEarlier's choice, best first
		calls   []int   // texts per embedding call
	}{
		{"embedded once", false, []int64{1, 3}, []int{1 + len(rounds), 1}},
		{"embedding fails", true, []int64{1, 3}, []int{1 + len(rounds)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &recordingEmbedder{Model: offline.New(offline.Options{}), fail: tc.fail}
			a := &Assembler{Model: m, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			sc := a.newRoundScorer(w)
			earlier := sc.rankEarlier(context.Background(), followUp, len(w.recent), w.plan.verbatim)
			if got := seqs(earlier); !slices.Equal(got, tc.earlier) {
				t.Errorf("rankEarlier = %v, want %v", got, tc.earlier)
			}
			if again := sc.rankEarlier(context.Background(), followUp, len(w.recent), w.plan.verbatim); !slices.Equal(seqs(again), tc.earlier) {
				t.Errorf("a second ranking differs: %v", seqs(again))
			}
			// No score bounds the ranking: the rewrite chooses the
			// referent by what the follow-up mentions, among every older
			// candidate up to the limit, an unrelated round last.
			if all := seqs(sc.rankEarlier(context.Background(), followUp, len(w.recent), len(rounds))); !slices.Equal(all, []int64{1, 3, 5}) {
				t.Errorf("rankEarlier up to every older round = %v, want [1 3 5]", all)
			}
			chosen, scores := sc.prioritize(context.Background(), "关于VPN账号：VPN_DEVICE_LIMIT 是什么意思？", w.plan.verbatim)
			if len(scores) != len(rounds) || !scores[0].Previous || !scores[0].Chosen {
				t.Errorf("prioritize scores = %+v, want every round, the previous one chosen", scores)
			}
			if got := seqs(chosen); !slices.Equal(got, []int64{1, 9}) {
				t.Errorf("prioritize chose %v, want [1 9]", got)
			}
			if !slices.Equal(m.calls, tc.calls) {
				t.Errorf("embedding calls = %v, want %v", m.calls, tc.calls)
			}
			if a.newRoundScorer(window{plan: windowPlan{strategy: domain.StrategyHybrid}}) != nil {
				t.Error("a scorer for HYBRID")
			}
		})
	}
}
