package portability

import (
	"bytes"
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
	key      string
	role     message.Role
	text     string
	at       *float64
	model    *string
	order    int
	parent   *gptKept
	children []*gptKept
	// into is the message this one was appended to.
	into *gptKept
}

// parseChatGPT reads ChatGPT's conversations.json: an array of
// conversations. Records are named "conversations[i]" and
// "conversations[i].mapping.<node id>". Conversations without a kept
// message are left out.
func parseChatGPT(content string, lim Limits) ([]draft, error) {
	var raws []json.RawMessage
	trimmed := strings.TrimSpace(content)
	if trimmed == "" || trimmed[0] != '[' {
		return nil, domain.BadInput("content", "content must be the JSON array of ChatGPT's conversations.json")
	}
	if err := json.Unmarshal([]byte(trimmed), &raws); err != nil {
		return nil, domain.BadInput("content", "content is not a JSON array of conversations: %s", jsonProblem(err))
	}
	if len(raws) > lim.Conversations {
		return nil, domain.OverLimit("conversations", LimitImportConversations, lim.Conversations,
			"at most %d conversations can be imported at once", lim.Conversations)
	}
	var out []draft
	for i, raw := range raws {
		d, err := draftOfChatGPT(fmt.Sprintf("conversations[%d]", i), raw, lim)
		if err != nil {
			return nil, err
		}
		if len(d.messages) > 0 {
			out = append(out, d)
		}
	}
	return out, nil
}

// draftOfChatGPT checks one ChatGPT conversation, named path, and returns
// its draft.
func draftOfChatGPT(path string, raw json.RawMessage, lim Limits) (draft, error) {
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
	root.normalise()
	ordered := gptOrder(root)
	if n := lim.Messages; len(ordered) > n {
		return d, domain.OverLimit(path+".mapping", LimitImportMessages, n, "a conversation can have at most %d messages", n)
	}
	index := make(map[*gptKept]int, len(ordered))
	for j, k := range ordered {
		index[k] = j
		dm := draftMessage{parent: -1, editedFrom: -1, role: k.role, content: k.text, model: k.model}
		if k.parent != root {
			dm.parent = index[k.parent]
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
	visited := map[string]bool{}
	order := 0
	var walk func(key string, under *gptKept) error
	walk = func(key string, under *gptKept) error {
		visited[key] = true
		n := nodes[key]
		if role, text, ok := gptText(n.Message); ok {
			if strings.ContainsRune(text, 0) {
				np := path + "." + key
				return domain.BadInput(np, "%s has text with a NUL character", np)
			}
			k := &gptKept{key: key, role: role, text: text, at: n.Message.CreateTime, order: order, parent: under}
			if m := n.Message.Metadata.ModelSlug; role == message.RoleASSISTANT && m != nil && *m != "" && len(*m) <= 128 {
				k.model = m
			}
			order++
			under.children = append(under.children, k)
			kept[key] = k
			under = k
		}
		for _, c := range kids[key] {
			if err := walk(c, under); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r, root); err != nil {
			return nil, nil, err
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

// normalise makes the kept tree one of questions and answers (package
// comment): below the virtual root an answer is dropped and its children
// move up; an answer that follows an answer is appended to it when it is
// its only child, else it becomes an answer to the same question with the
// earlier text in front.
func (n *gptKept) normalise() {
	for i := 0; i < len(n.children); i++ {
		c := n.children[i]
		switch {
		case n.role == "" && c.role == message.RoleASSISTANT:
			n.splice(i, c.children)
			c.into = nil
			i--
			continue
		case n.role == message.RoleASSISTANT && c.role == message.RoleASSISTANT && len(n.children) == 1:
			n.text += "\n\n" + c.text
			if c.model != nil {
				n.model = c.model
			}
			c.into = n
			n.children = nil
			n.splice(0, c.children)
			i = -1
			continue
		case n.role == message.RoleASSISTANT && c.role == message.RoleASSISTANT:
			c.text = n.text + "\n\n" + c.text
			n.children = append(n.children[:i:i], n.children[i+1:]...)
			q := n.parent
			at := 0
			for at < len(q.children) && q.children[at] != n {
				at++
			}
			c.parent = q
			q.children = append(q.children[:at+1:at+1], append([]*gptKept{c}, q.children[at+1:]...)...)
			i--
			continue
		}
		c.normalise()
	}
}

// splice replaces n's child at i (when i < len(n.children)) by cs, whose
// parent becomes n; with n.children empty it sets them to cs.
func (n *gptKept) splice(i int, cs []*gptKept) {
	for _, c := range cs {
		c.parent = n
	}
	if i >= len(n.children) {
		n.children = append(n.children, cs...)
		return
	}
	rest := append([]*gptKept{}, n.children[i+1:]...)
	n.children = append(append(n.children[:i], cs...), rest...)
}

// gptOrder lists the kept messages below root in creation order (their
// create_time, then mapping order), every parent before its children: a
// message is listed once its parent is.
func gptOrder(root *gptKept) []*gptKept {
	var all []*gptKept
	var collect func(n *gptKept)
	collect = func(n *gptKept) {
		for _, c := range n.children {
			all = append(all, c)
			collect(c)
		}
	}
	collect(root)
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
	var list func(k *gptKept)
	list = func(k *gptKept) {
		listed[k] = true
		out = append(out, k)
		for _, w := range waiting[k] {
			list(w)
		}
		delete(waiting, k)
	}
	for _, k := range all {
		if listed[k.parent] {
			list(k)
		} else {
			waiting[k.parent] = append(waiting[k.parent], k)
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
