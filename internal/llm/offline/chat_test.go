package offline_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/llm/offline"
	"github.com/ragchat/ragchat/internal/promptfmt"
)

// answerPrompt builds an answer prompt the way the prompt assembler does.
func answerPrompt(question string, evidence ...string) []llm.Message {
	var blocks []string
	for i, e := range evidence {
		blocks = append(blocks, promptfmt.EvidenceBlock(promptfmt.Label(i+1), "文档", e))
	}
	user := promptfmt.Wrap(promptfmt.ConversationSection, "USER: 上传文件最大是多少？\nASSISTANT: 20MB [C9]") + "\n\n" +
		promptfmt.Wrap(promptfmt.UserInputSection, question) + "\n\n" +
		promptfmt.Wrap(promptfmt.KnowledgeSection, strings.Join(blocks, "\n\n"))
	return []llm.Message{{Role: llm.RoleSystem, Content: "Answer only from the evidence."}, {Role: llm.RoleUser, Content: user}}
}

// collect reads s to the end and returns its deltas.
func collect(t *testing.T, s llm.Stream) []string {
	t.Helper()
	defer s.Close()
	var out []string
	for {
		d, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Recv: %v", err)
		}
		out = append(out, d)
	}
}

func fastModel() llm.Model { return offline.New(offline.Options{TokenDelay: -1}) }

func TestChatAnswersExtractivelyWithCitations(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := []struct {
		name     string
		question string
		evidence []string
		prefix   string
		contains []string
	}{
		{
			name:     "chinese",
			question: "上传文件超过限制返回什么错误码？",
			evidence: []string{corpus["upload"], corpus["refund"]},
			prefix:   "根据资料：",
			contains: []string{"ERR_FILE_TOO_LARGE", "[C1]"},
		},
		{
			name:     "chinese second chunk",
			question: "银行卡退款多久到账？",
			evidence: []string{corpus["password"], corpus["refund"]},
			prefix:   "根据资料：",
			contains: []string{"银行卡退款的到账时间取决于发卡银行", "[C2]"},
		},
		{
			name:     "english",
			question: "How long do refunds take?",
			evidence: []string{corpus["uploadEN"], corpus["refundEN"]},
			prefix:   "According to the documentation: ",
			contains: []string{"5 business days", "[C2]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs := answerPrompt(tc.question, tc.evidence...)
			s, err := fastModel().ChatStream(context.Background(), llm.ChatRequest{Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			deltas := collect(t, s)
			answer := strings.Join(deltas, "")
			if len(deltas) < 2 {
				t.Fatalf("streamed %d deltas, want many", len(deltas))
			}
			if !strings.HasPrefix(answer, tc.prefix) {
				t.Errorf("answer %q lacks prefix %q", answer, tc.prefix)
			}
			for _, c := range tc.contains {
				if !strings.Contains(answer, c) {
					t.Errorf("answer %q lacks %q", answer, c)
				}
			}
			known := map[string]bool{}
			for i := range tc.evidence {
				known[promptfmt.Label(i+1)] = true
			}
			cites := promptfmt.Citations(answer)
			if len(cites) == 0 {
				t.Errorf("answer %q cites nothing", answer)
			}
			for _, c := range cites {
				if !known[c] {
					t.Errorf("answer cites unknown label %s (history mentioned C9)", c)
				}
			}
			u := s.Usage()
			if !u.Estimated || u.CompletionTokens != len(deltas) || u.PromptTokens <= 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
				t.Errorf("usage = %+v for %d deltas", u, len(deltas))
			}
			if s.Model() != offline.ChatModel {
				t.Errorf("model = %q", s.Model())
			}
		})
	}
}

func TestChatStreamsCJKRuneByRune(t *testing.T) {
	s, err := fastModel().ChatStream(context.Background(), llm.ChatRequest{Messages: answerPrompt("上传文件超过限制返回什么错误码？", corpus["upload"])})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range collect(t, s) {
		if strings.ContainsFunc(d, func(r rune) bool { return r >= 0x4E00 && r <= 0x9FFF }) && len([]rune(d)) != 1 {
			t.Errorf("CJK delta %q has more than one rune", d)
		}
	}
}

func TestChatIsDeterministic(t *testing.T) {
	msgs := answerPrompt("上传文件超过限制返回什么错误码？", corpus["upload"], corpus["refund"], corpus["hnsw"])
	var first string
	for i := 0; i < 10; i++ {
		s, _ := fastModel().ChatStream(context.Background(), llm.ChatRequest{Messages: msgs})
		got := strings.Join(collect(t, s), "")
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("run %d: %q != %q", i, got, first)
		}
	}
}

func TestChatWithoutEvidenceDeclines(t *testing.T) {
	tests := []struct{ question, want string }{
		{"上传文件最大是多少？", "知识库中没有找到"},
		{"How large can uploads be?", "cannot answer this from the knowledge base"},
	}
	for _, tc := range tests {
		s, _ := fastModel().ChatStream(context.Background(), llm.ChatRequest{Messages: answerPrompt(tc.question)})
		got := strings.Join(collect(t, s), "")
		if !strings.Contains(got, tc.want) || len(promptfmt.Citations(got)) != 0 {
			t.Errorf("%q: answer %q", tc.question, got)
		}
	}
}

func TestChatMaxTokensCapsTheStream(t *testing.T) {
	s, _ := fastModel().ChatStream(context.Background(), llm.ChatRequest{
		Messages: answerPrompt("上传文件超过限制返回什么错误码？", corpus["upload"]), MaxTokens: 5,
	})
	if n := len(collect(t, s)); n != 5 {
		t.Errorf("streamed %d deltas, want 5", n)
	}
}

func TestChatCancelStopsStreaming(t *testing.T) {
	defer goleak.VerifyNone(t)
	msgs := answerPrompt("上传文件超过限制返回什么错误码？", corpus["upload"])
	slow := offline.New(offline.Options{TokenDelay: time.Hour})

	t.Run("context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := slow.ChatStream(ctx, llm.ChatRequest{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		errc := make(chan error, 1)
		go func() { _, err := s.Recv(); errc <- err }()
		cancel()
		if err := <-errc; llm.KindOf(err) != llm.KindCanceled || llm.FailureCode(err) != "CANCELLED" {
			t.Fatalf("Recv after cancel = %v, want KindCanceled", err)
		}
	})
	t.Run("close", func(t *testing.T) {
		s, err := slow.ChatStream(context.Background(), llm.ChatRequest{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { _, err := s.Recv(); errc <- err }()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; llm.KindOf(err) != llm.KindCanceled {
			t.Fatalf("Recv after Close = %v, want KindCanceled", err)
		}
		if _, err := s.Recv(); llm.KindOf(err) != llm.KindCanceled {
			t.Fatalf("Recv on a closed stream = %v", err)
		}
		_ = s.Close()
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		s, err := slow.ChatStream(ctx, llm.ChatRequest{Messages: msgs})
		if err != nil {
			if llm.KindOf(err) != llm.KindTimeout {
				t.Fatalf("ChatStream = %v", err)
			}
			return
		}
		defer s.Close()
		if _, err := s.Recv(); llm.KindOf(err) != llm.KindTimeout {
			t.Fatalf("Recv past deadline = %v, want KindTimeout", err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := slow.ChatStream(ctx, llm.ChatRequest{Messages: msgs}); llm.KindOf(err) != llm.KindCanceled {
			t.Fatalf("ChatStream = %v", err)
		}
	})
}

func TestChatPacesTokens(t *testing.T) {
	// With the default delay the stream still completes and yields the same
	// text as an unpaced one.
	msgs := answerPrompt("上传文件最大是多少？", corpus["upload"])
	paced, _ := offline.New(offline.Options{TokenDelay: time.Microsecond}).ChatStream(context.Background(), llm.ChatRequest{Messages: msgs})
	fast, _ := fastModel().ChatStream(context.Background(), llm.ChatRequest{Messages: msgs})
	if a, b := strings.Join(collect(t, paced), ""), strings.Join(collect(t, fast), ""); a != b {
		t.Errorf("paced %q != unpaced %q", a, b)
	}
}

// TestChatStreamTakesCallersPromptCount: the offline model reports the
// caller's prompt count (PromptTokens) rather than tokenising the prompt,
// and counts the prompt itself only when none was given.
func TestChatStreamTakesCallersPromptCount(t *testing.T) {
	msgs := answerPrompt("上传文件超过限制返回什么错误码？", corpus["upload"])
	for _, tc := range []struct {
		name  string
		given int
		want  int
	}{
		{"given", 4321, 4321},
		{"counted", 0, llm.EstimateMessageTokens(msgs)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := fastModel().ChatStream(context.Background(), llm.ChatRequest{Messages: msgs, PromptTokens: tc.given})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for {
				if _, err := s.Recv(); err != nil {
					break
				}
			}
			if u := s.Usage(); u.PromptTokens != tc.want || !u.Estimated {
				t.Errorf("usage = %+v, want prompt %d", u, tc.want)
			}
		})
	}
}
