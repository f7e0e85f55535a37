package prompt_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/internal/prompt"
	"github.com/ragchat/ragchat/internal/promptfmt"
)

// runeCounter counts one token per rune. It is exactly additive, so token
// arithmetic in tests is predictable.
type runeCounter struct{ calls *atomic.Int64 }

func (c runeCounter) Count(s string) int {
	if c.calls != nil {
		c.calls.Add(1)
	}
	return utf8.RuneCountInString(s)
}

func (runeCounter) Name() string { return "test/runes" }

func chunkID(n int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "chunk/%d", n))
}

// evidence returns n chunks of similar size, ranked best first.
func evidence(n int) []prompt.Evidence {
	out := make([]prompt.Evidence, n)
	for i := range out {
		out[i] = prompt.Evidence{
			ChunkID:         chunkID(i + 1),
			DocumentID:      uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "doc/%d", i%3)),
			DocumentTitle:   fmt.Sprintf("Upload limits, part %d", i+1),
			DocumentVersion: 2,
			Content:         fmt.Sprintf("Chunk %d: single files are limited to 20 MB; larger uploads fail with ERR_FILE_TOO_LARGE.", i+1),
			Score:           1 - float64(i)/100,
		}
	}
	return out
}

// rounds returns n rounds, oldest first, with sequence numbers 2i-1 and 2i.
func rounds(n int) []prompt.Round {
	out := make([]prompt.Round, n)
	for i := range out {
		out[i] = prompt.Round{
			UserSeq:      int64(2*i + 1),
			AssistantSeq: int64(2*i + 2),
			User:         fmt.Sprintf("question %d about upload limits?", i+1),
			Assistant:    fmt.Sprintf("answer %d: the limit is 20 MB [C1].", i+1),
		}
	}
	return out
}

// assistantPrefix labels an old answer in the conversation section.
const assistantPrefix = "ASSISTANT (earlier answer, unverified): "

// roundCost is what one round of rounds() costs under runeCounter: its two
// lines with their newlines.
func roundCost(r prompt.Round) int {
	return userCost(r) + answerCost(r)
}

// userCost is a round's USER line with its newline under runeCounter.
func userCost(r prompt.Round) int { return utf8.RuneCountInString("USER: "+r.User) + 1 }

// answerCost is a round's whole ASSISTANT line with its newline.
func answerCost(r prompt.Round) int {
	return utf8.RuneCountInString(assistantPrefix+r.Assistant) + 1
}

// omittedCost is an omitted answer's line with its newline.
func omittedCost() int { return utf8.RuneCountInString(assistantPrefix+"[omitted]") + 1 }

// shortCost is a shortened answer's line with its newline.
func shortCost(r prompt.Round) int {
	return utf8.RuneCountInString(assistantPrefix) + prompt.ShortenedAnswerRunes + utf8.RuneCountInString(" …[shortened]") + 1
}

// frameCost is the conversation section's tags under runeCounter.
func frameCost() int {
	s := promptfmt.ConversationSection
	return utf8.RuneCountInString(promptfmt.Open(s)+"\n") + utf8.RuneCountInString(promptfmt.Close(s)+"\n\n")
}

// conversationLines returns the lines of the conversation section.
func conversationLines(user string) []string {
	body, ok := promptfmt.SectionBody(user, promptfmt.ConversationSection)
	if !ok {
		return nil
	}
	return strings.Split(body, "\n")
}

func labels(r prompt.Result) []string {
	var out []string
	for _, e := range r.Evidence {
		out = append(out, e.Label)
	}
	return out
}
