package portability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/chat"
	"github.com/ragchat/ragchat/internal/domain"
)

// parseRagchat reads our own JSON: one Document, an array of Documents,
// or Documents one per line (the bulk export), counting the text in b.
// Records are named "conversations[i]" in the order they come, the first
// being 0. It stops when ctx ends.
func parseRagchat(ctx context.Context, content string, b *budget) ([]draft, error) {
	raws, err := splitDocuments(content, b.lim)
	if err != nil {
		return nil, err
	}
	out := make([]draft, 0, len(raws))
	for i, raw := range raws {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := fmt.Sprintf("conversations[%d]", i)
		var doc Document
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, domain.BadInput(path, "%s is not a ragchat conversation: %s", path, jsonProblem(err))
		}
		d, err := draftOf(path, &doc, b)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// splitDocuments splits content into its JSON values: the elements of an
// array, or the values that follow one another (JSON Lines).
func splitDocuments(content string, lim Limits) ([]json.RawMessage, error) {
	trimmed := strings.TrimSpace(content)
	if trimmed == "" {
		return nil, domain.BadInput("content", "content must not be empty")
	}
	tooMany := func() error {
		return domain.OverLimit("conversations", LimitImportConversations, lim.Conversations,
			"at most %d conversations can be imported at once", lim.Conversations)
	}
	var raws []json.RawMessage
	if trimmed[0] == '[' {
		if err := json.Unmarshal([]byte(trimmed), &raws); err != nil {
			return nil, domain.BadInput("content", "content is not a JSON array of conversations: %s", jsonProblem(err))
		}
		if len(raws) > lim.Conversations {
			return nil, tooMany()
		}
		return raws, nil
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return raws, nil
		}
		if err != nil {
			path := fmt.Sprintf("conversations[%d]", len(raws))
			return nil, domain.BadInput(path, "%s is not valid JSON: %s", path, jsonProblem(err))
		}
		if len(raws) == lim.Conversations {
			return nil, tooMany()
		}
		raws = append(raws, raw)
	}
}

// draftOf checks doc, named path, counts its text in b and returns its
// draft.
func draftOf(path string, doc *Document, b *budget) (draft, error) {
	lim := b.lim
	d := draft{createdAt: doc.Conversation.CreatedAt, leaf: -1}
	if doc.Version != Version {
		return d, domain.BadInput(path+".version", "%s.version must be %q", path, Version)
	}
	c := doc.Conversation
	title, err := checkTitle(path+".conversation.title", c.Title)
	if err != nil {
		return d, err
	}
	d.title = title
	if c.HistoryStrategy != nil && *c.HistoryStrategy != "" {
		h := domain.HistoryStrategy(*c.HistoryStrategy)
		if !h.Valid() {
			return d, domain.BadInput(path+".conversation.historyStrategy", "unknown history strategy (want one of %v)", domain.HistoryStrategies)
		}
		d.strategy = &h
	}
	if n := lim.Messages; len(doc.Messages) > n {
		return d, domain.OverLimit(path+".messages", LimitImportMessages, n, "a conversation can have at most %d messages", n)
	}
	index := make(map[string]int, len(doc.Messages))
	for j, m := range doc.Messages {
		mp := fmt.Sprintf("%s.messages[%d]", path, j)
		if strings.TrimSpace(m.ID) == "" {
			return d, domain.BadInput(mp+".id", "%s.id must not be empty", mp)
		}
		if _, dup := index[m.ID]; dup {
			return d, domain.BadInput(mp+".id", "%s.id repeats an earlier message's id", mp)
		}
		dm := draftMessage{parent: -1, editedFrom: -1, content: m.Content, createdAt: m.CreatedAt, model: m.Model}
		if m.ParentID != nil {
			p, ok := index[*m.ParentID]
			if !ok {
				return d, domain.BadInput(mp+".parentId", "%s.parentId must name a message that comes before it", mp)
			}
			dm.parent = p
		}
		if m.EditedFromID != nil {
			e, ok := index[*m.EditedFromID]
			if !ok {
				return d, domain.BadInput(mp+".editedFromId", "%s.editedFromId must name a message that comes before it", mp)
			}
			dm.editedFrom = e
		}
		switch m.Role {
		case string(message.RoleUSER):
			dm.role = message.RoleUSER
		case string(message.RoleASSISTANT):
			dm.role = message.RoleASSISTANT
			if dm.parent < 0 || d.messages[dm.parent].role != message.RoleUSER {
				return d, domain.BadInput(mp+".parentId", "%s is an answer, so its parent must be a USER message", mp)
			}
			if a := answerAttempt(doc.Messages, index, m); a != nil {
				dm.promptTokens, dm.completionTokens, dm.completedAt = a.PromptTokens, a.CompletionTokens, a.CompletedAt
				if dm.model == nil {
					dm.model = a.Model
				}
			}
		default:
			return d, domain.BadInput(mp+".role", "%s.role must be USER or ASSISTANT", mp)
		}
		if err := checkContent(mp+".content", dm.role, dm.content); err != nil {
			return d, err
		}
		question := ""
		if dm.role == message.RoleASSISTANT {
			question = d.messages[dm.parent].content
		}
		if err := b.message(mp+".content", dm.role, dm.content, question); err != nil {
			return d, err
		}
		if dm.model != nil && len(*dm.model) > 128 {
			return d, domain.BadInput(mp+".model", "%s.model is longer than 128 bytes", mp)
		}
		index[m.ID] = j
		d.messages = append(d.messages, dm)
	}
	if c.CurrentLeafID != nil {
		l, ok := index[*c.CurrentLeafID]
		if !ok {
			return d, domain.BadInput(path+".conversation.currentLeafId", "%s.conversation.currentLeafId must name one of its messages", path)
		}
		d.leaf = l
	}
	return d, nil
}

// answerAttempt is the attempt of answer m, found among its question's
// attempts, or nil.
func answerAttempt(ms []Message, index map[string]int, m Message) *Attempt {
	if m.AttemptID == nil || m.ParentID == nil {
		return nil
	}
	q := ms[index[*m.ParentID]]
	for i := range q.Attempts {
		if q.Attempts[i].ID == *m.AttemptID {
			return &q.Attempts[i]
		}
	}
	return nil
}

// checkTitle checks an imported title (field names it): trimmed, at most
// chat.MaxTitleBytes, "" for none.
func checkTitle(field, title string) (string, error) {
	return domain.TextRule{Field: field, Limit: domain.LimitTitleLength, Max: chat.MaxTitleBytes, Bytes: true}.Check(title)
}

// checkContent checks a message's content (field names it): text without
// NUL characters, and not blank for a question.
func checkContent(field string, role message.Role, content string) error {
	if strings.ContainsRune(content, 0) {
		return domain.BadInput(field, "%s must be text without NUL characters", field)
	}
	if role == message.RoleUSER && strings.TrimSpace(content) == "" {
		return domain.BadInput(field, "%s must not be empty: it is a question", field)
	}
	return nil
}

// jsonProblem describes a JSON decoding error without echoing the input.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("%s must not be a JSON %s", typ.Field, typ.Value)
		}
		return fmt.Sprintf("unexpected JSON %s", typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early"
	default:
		return "invalid JSON"
	}
}
