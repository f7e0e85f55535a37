package portability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
)

// gptConversation is one conversation of ChatGPT's conversations.json.
type gptConversation struct {
	Title       *string         `json:"title"`
	CreateTime  *float64        `json:"create_time"`
	CurrentNode *string         `json:"current_node"`
	Mapping     json.RawMessage `json:"mapping"`
}

// gptNode is one node of a conversation's mapping.
type gptNode struct {
	Message  *gptMessage `json:"message"`
	Parent   *string     `json:"parent"`
	Children []string    `json:"children"`
}

// gptMessage is a node's message.
type gptMessage struct {
	Author struct {
		Role string `json:"role"`
	} `json:"author"`
	Content struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
	} `json:"content"`
	CreateTime *float64 `json:"create_time"`
	Metadata   struct {
		ModelSlug *string `json:"model_slug"`
		Hidden    bool    `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

// gptKept is a kept message of the mapping, in the tree of kept messages.
type gptKept struct {
	key   string
	role  message.Role
	text  string
	at    *float64
	model *string
	order int
	// children are the kept messages that follow this one in the mapping;
	// parent is, once normalised, the message this one follows (the
	// virtual root for a first question).
	children []*gptKept
	parent   *gptKept
	// appended are the texts of the answers appended to this one, and
	// size the length of its text once they are; into is the message
	// this one was appended to.
	appended []string
	size     int
	into     *gptKept
}

// parseChatGPT reads ChatGPT's conversations.json: an array of
// conversations, counting the text in b. Records are named
// "conversations[i]" and "conversations[i].mapping.<node id>".
// Conversations without a kept message are left out. It stops when ctx
// ends.
func parseChatGPT(ctx context.Context, content string, b *budget) ([]draft, error) {
	var raws []json.RawMessage
	trimmed := strings.TrimSpace(content)
	if trimmed == "" || trimmed[0] != '[' {
		return nil, domain.BadInput("content", "content must be the JSON array of ChatGPT's conversations.json")
	}
	if err := json.Unmarshal([]byte(trimmed), &raws); err != nil {
		return nil, domain.BadInput("content", "content is not a JSON array of conversations: %s", jsonProblem(err))
	}
	if n := b.lim.Conversations; len(raws) > n {
		return nil, domain.OverLimit("conversations", LimitImportConversations, n,
			"at most %d conversations can be imported at once", n)
	}
	var out []draft
	for i, raw := range raws {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := draftOfChatGPT(fmt.Sprintf("conversations[%d]", i), raw, b)
		if err != nil {
			return nil, err
		}
		if len(d.messages) > 0 {
			out = append(out, d)
		}
	}
	return out, nil
}

// draftOfChatGPT checks one ChatGPT conversation, named path, counts its
// text in b and returns its draft.
func draftOfChatGPT(path string, raw json.RawMessage, b *budget) (draft, error) {
	d := draft{leaf: -1}
	var c gptConversation
	if err := json.Unmarshal(raw, &c); err != nil {
		return d, domain.BadInput(path, "%s is not a ChatGPT conversation: %s", path, jsonProblem(err))
	}
	if c.Title != nil {
		title, err := checkTitle(path+".title", *c.Title)
		if err != nil {
			return d, err
		}
		d.title = title
	}
	if t, ok := gptTime(c.CreateTime); ok {
		d.createdAt = t
	}
	keys, nodes, err := gptMapping(path+".mapping", c.Mapping)
	if err != nil {
		return d, err
	}
	if c.CurrentNode != nil {
		if _, ok := nodes[*c.CurrentNode]; !ok {
			return d, domain.BadInput(path+".current_node", "%s.current_node must name a node of the mapping", path)
		}
	}
	root, kept, err := gptTree(path+".mapping", keys, nodes)
	if err != nil {
		return d, err
	}
	msgs, err := root.normalise(path+".mapping", b)
	if err != nil {
		return d, err
	}
	ordered := gptOrder(root, msgs)
	index := make(map[*gptKept]int, len(ordered))
	for j, k := range ordered {
		index[k] = j
		dm := draftMessage{parent: -1, editedFrom: -1, role: k.role, content: k.joined(), model: k.model}
		question := ""
		if k.parent != root {
			dm.parent = index[k.parent]
			question = d.messages[dm.parent].content
		}
		if err := b.message(path+".mapping."+k.key, dm.role, dm.content, question); err != nil {
			return d, err
		}
		if t, ok := gptTime(k.at); ok {
			dm.createdAt = t
		} else {
			dm.createdAt = d.createdAt
		}
		d.messages = append(d.messages, dm)
	}
	// The current leaf: the current node's nearest kept ancestor (or the
	// message it was appended to).
	if c.CurrentNode != nil {
		for key := c.CurrentNode; key != nil; key = nodes[*key].Parent {
			k := kept[*key]
			for k != nil && k.into != nil {
				k = k.into
			}
			if j, ok := index[k]; ok {
				d.leaf = j
				break
			}
		}
	}
	return d, nil
}

// gptMapping decodes a mapping, named path, and returns its keys in the
// order they come with the nodes by key.
func gptMapping(path string, raw json.RawMessage) ([]string, map[string]*gptNode, error) {
	bad := func(format string, args ...any) error {
		return domain.BadInput(path, "%s "+format, append([]any{path}, args...)...)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, bad("must be a JSON object of message nodes")
	}
	var keys []string
	nodes := map[string]*gptNode{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, bad("is not valid JSON")
		}
		key := tok.(string)
		np := path + "." + key
		if _, dup := nodes[key]; dup {
			return nil, nil, domain.BadInput(np, "%s appears twice", np)
		}
		var n gptNode
		if err := dec.Decode(&n); err != nil {
			return nil, nil, domain.BadInput(np, "%s is not a message node: %s", np, jsonProblem(err))
		}
		keys = append(keys, key)
		nodes[key] = &n
	}
	for _, key := range keys {
		if p := nodes[key].Parent; p != nil {
			if _, ok := nodes[*p]; !ok {
				np := path + "." + key
				return nil, nil, domain.BadInput(np, "%s has a parent that is not in the mapping", np)
			}
		}
	}
	return keys, nodes, nil
}

// gptTree builds the tree of kept messages under a virtual root: each
// kept node follows its nearest kept ancestor; children come in their
// parent's children order, then in mapping order. It refuses a node in a
// cycle and a message whose text has a NUL.
func gptTree(path string, keys []string, nodes map[string]*gptNode) (*gptKept, map[string]*gptKept, error) {
	pos := make(map[string]int, len(keys))
	for i, k := range keys {
		pos[k] = i
	}
	kids := map[string][]string{}
	var roots []string
	for _, k := range keys {
		if p := nodes[k].Parent; p != nil {
			kids[*p] = append(kids[*p], k)
		} else {
			roots = append(roots, k)
		}
	}
	for p, ks := range kids {
		listed := map[string]int{}
		for i, c := range nodes[p].Children {
			if _, ok := listed[c]; !ok {
				listed[c] = i
			}
		}
		sort.SliceStable(ks, func(i, j int) bool {
			li, iok := listed[ks[i]]
			lj, jok := listed[ks[j]]
			if iok != jok {
				return iok
			}
			if iok && li != lj {
				return li < lj
			}
			return pos[ks[i]] < pos[ks[j]]
		})
	}
	root := &gptKept{}
	kept := map[string]*gptKept{}
	visited := make(map[string]bool, len(keys))
	order := 0
	// A walk in preorder, with a stack rather than recursion: a mapping
	// may be one chain of as many nodes as the content holds.
	type step struct {
		key   string
		under *gptKept
	}
	stack := make([]step, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, step{roots[i], root})
	}
	for len(stack) > 0 {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visited[st.key] = true
		n, under := nodes[st.key], st.under
		if role, text, ok := gptText(n.Message); ok {
			if strings.ContainsRune(text, 0) {
				np := path + "." + st.key
				return nil, nil, domain.BadInput(np, "%s has text with a NUL character", np)
			}
			k := &gptKept{key: st.key, role: role, text: text, size: len(text), at: n.Message.CreateTime, order: order}
			if m := n.Message.Metadata.ModelSlug; role == message.RoleASSISTANT && m != nil && *m != "" && len(*m) <= 128 {
				k.model = m
			}
			order++
			under.children = append(under.children, k)
			kept[st.key] = k
			under = k
		}
		ks := kids[st.key]
		for i := len(ks) - 1; i >= 0; i-- {
			stack = append(stack, step{ks[i], under})
		}
	}
	for _, k := range keys {
		if !visited[k] {
			np := path + "." + k
			return nil, nil, domain.BadInput(np, "%s is in a cycle of parents", np)
		}
	}
	return root, kept, nil
}

// gptText is the role and text of a node's message when it is kept: a
// visible user or assistant message with text parts that are not blank.
func gptText(m *gptMessage) (message.Role, string, bool) {
	if m == nil || m.Metadata.Hidden {
		return "", "", false
	}
	var role message.Role
	switch m.Author.Role {
	case "user":
		role = message.RoleUSER
	case "assistant":
		role = message.RoleASSISTANT
	default:
		return "", "", false
	}
	if ct := m.Content.ContentType; ct != "text" && ct != "multimodal_text" {
		return "", "", false
	}
	var parts []string
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil && strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		return "", "", false
	}
	return role, text, true
}

// normalise makes the kept tree below the virtual root n one of
// questions and answers (package comment) and returns its messages, each
// with the parent it follows, checking the messages' number and the
// length of the answers it appends to one another against b (path names
// the mapping). Below the virtual root an answer is dropped and its
// children move up. The answers that follow an answer are appended to it
// when they are its only continuations: the last of them when it has no
// question after it; the others become answers to the same question,
// each with its own text. Each kept node is visited once and each text
// is joined once (joined), so time and the text stored are linear in the
// input.
func (n *gptKept) normalise(path string, b *budget) ([]*gptKept, error) {
	type step struct {
		to   *gptKept
		kids []*gptKept
	}
	var out []*gptKept
	work := []step{{n, n.children}}
	place := func(k, under *gptKept) error {
		k.parent = under
		out = append(out, k)
		if m := b.lim.Messages; len(out) > m {
			return domain.OverLimit(path, LimitImportMessages, m, "a conversation can have at most %d messages", m)
		}
		work = append(work, step{k, k.children})
		return nil
	}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		a := w.to
		var last *gptKept // the answer appended to a, if any
		if a.role == message.RoleASSISTANT {
			for _, c := range w.kids {
				if c.role == message.RoleUSER {
					last = nil
					break
				}
				last = c
			}
		}
		for _, c := range w.kids {
			var err error
			switch {
			case a == n && c.role == message.RoleASSISTANT:
				c.into = nil
				work = append(work, step{n, c.children})
			case a.role == message.RoleASSISTANT && c.role == message.RoleASSISTANT && c != last:
				err = place(c, a.parent)
			case c != last:
				err = place(c, a)
			}
			if err != nil {
				return nil, err
			}
		}
		if last != nil {
			a.size += len(answerSeparator) + len(last.text)
			if err := b.messageSize(path+"."+a.key, a.size); err != nil {
				return nil, err
			}
			a.appended = append(a.appended, last.text)
			if last.model != nil {
				a.model = last.model
			}
			last.into = a
			work = append(work, step{a, last.children})
		}
	}
	return out, nil
}

// answerSeparator joins the parts of an answer.
const answerSeparator = "\n\n"

// joined is k's text with the answers appended to it.
func (k *gptKept) joined() string {
	if len(k.appended) == 0 {
		return k.text
	}
	var sb strings.Builder
	sb.Grow(k.size)
	sb.WriteString(k.text)
	for _, t := range k.appended {
		sb.WriteString(answerSeparator)
		sb.WriteString(t)
	}
	return sb.String()
}

// gptOrder lists msgs, the messages below root, in creation order (their
// create_time, then mapping order), every parent before its children: a
// message is listed once its parent is.
func gptOrder(root *gptKept, msgs []*gptKept) []*gptKept {
	all := append([]*gptKept(nil), msgs...)
	sort.SliceStable(all, func(i, j int) bool {
		ti, iok := gptSeconds(all[i].at)
		tj, jok := gptSeconds(all[j].at)
		if iok && jok && ti != tj {
			return ti < tj
		}
		return all[i].order < all[j].order
	})
	listed := map[*gptKept]bool{root: true}
	waiting := map[*gptKept][]*gptKept{}
	out := make([]*gptKept, 0, len(all))
	var stack []*gptKept
	for _, k := range all {
		if !listed[k.parent] {
			waiting[k.parent] = append(waiting[k.parent], k)
			continue
		}
		// k, then the messages that waited for it, depth first.
		stack = append(stack[:0], k)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			listed[x] = true
			out = append(out, x)
			ws := waiting[x]
			delete(waiting, x)
			for i := len(ws) - 1; i >= 0; i-- {
				stack = append(stack, ws[i])
			}
		}
	}
	return out
}

// gptSeconds is a create_time when it is a usable number.
func gptSeconds(t *float64) (float64, bool) {
	if t == nil || math.IsNaN(*t) || math.IsInf(*t, 0) || *t <= 0 || *t > 1e11 {
		return 0, false
	}
	return *t, true
}

// gptTime is a create_time (seconds since 1970, fractional) as a time.
func gptTime(t *float64) (time.Time, bool) {
	s, ok := gptSeconds(t)
	if !ok {
		return time.Time{}, false
	}
	sec, frac := math.Modf(s)
	return time.Unix(int64(sec), int64(frac*1e6)*1e3).UTC(), true
}
