package portability

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// writeMarkdown writes the Markdown export of a conversation: a header
// with its metadata, its current branch as a transcript, and then every
// message off the current branch exactly once, grouped by branch (the
// branches in the order of their leaves), each branch under a heading
// naming the message it follows. An answer lists its sources under it,
// an unavailable one only by its label.
func writeMarkdown(b *bytes.Buffer, c Conversation, ms []Message) {
	title := strings.TrimSpace(c.Title)
	if title == "" {
		title = "Untitled conversation"
	}
	fmt.Fprintf(b, "# %s\n\n", title)
	fmt.Fprintf(b, "- Conversation: %s\n- Created: %s\n- Status: %s\n", c.ID, c.CreatedAt.Format(time.RFC3339), c.Status)
	if c.HistoryStrategy != nil {
		fmt.Fprintf(b, "- History strategy: %s\n", *c.HistoryStrategy)
	}
	fmt.Fprintf(b, "- Knowledge base: %s\n- Format: %s (Markdown)\n", c.KnowledgeBaseID, Version)

	byID := make(map[string]*Message, len(ms))
	children := map[string]int{}
	for i := range ms {
		byID[ms[i].ID] = &ms[i]
		if p := ms[i].ParentID; p != nil {
			children[*p]++
		}
	}
	path := func(leaf string) []*Message {
		var up []*Message
		for m := byID[leaf]; m != nil; {
			up = append(up, m)
			if m.ParentID == nil {
				break
			}
			m = byID[*m.ParentID]
		}
		for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
			up[i], up[j] = up[j], up[i]
		}
		return up
	}
	done := map[string]bool{}
	if c.CurrentLeafID != nil {
		b.WriteString("\n## Current branch\n")
		for _, m := range path(*c.CurrentLeafID) {
			writeMarkdownMessage(b, "###", m, byID)
			done[m.ID] = true
		}
	}
	n := 0
	for i := range ms {
		leaf := &ms[i]
		if children[leaf.ID] > 0 || done[leaf.ID] {
			continue
		}
		var rest []*Message
		for _, m := range path(leaf.ID) {
			if !done[m.ID] {
				rest = append(rest, m)
			}
		}
		if len(rest) == 0 {
			continue
		}
		if n == 0 {
			b.WriteString("\n## Other branches\n")
		}
		n++
		if p := rest[0].ParentID; p != nil && byID[*p] != nil {
			fmt.Fprintf(b, "\n### Branch %d, after message %d\n", n, byID[*p].SequenceNo)
		} else {
			fmt.Fprintf(b, "\n### Branch %d, from the start\n", n)
		}
		for _, m := range rest {
			writeMarkdownMessage(b, "####", m, byID)
			done[m.ID] = true
		}
	}
}

// writeMarkdownMessage writes one message under a heading of level h.
func writeMarkdownMessage(b *bytes.Buffer, h string, m *Message, byID map[string]*Message) {
	who := "You"
	if m.Role == "ASSISTANT" {
		who = "Assistant"
	}
	fmt.Fprintf(b, "\n%s %s (message %d, %s)\n\n%s\n", h, who, m.SequenceNo, m.CreatedAt.Format(time.RFC3339), strings.TrimRight(m.Content, "\n"))
	if m.AttemptID == nil || m.ParentID == nil || byID[*m.ParentID] == nil {
		return
	}
	for _, a := range byID[*m.ParentID].Attempts {
		if a.ID != *m.AttemptID || len(a.Sources) == 0 {
			continue
		}
		b.WriteString("\nSources:\n")
		for _, s := range a.Sources {
			if !s.Available {
				fmt.Fprintf(b, "- [%s] (no longer available)\n", s.Label)
				continue
			}
			fmt.Fprintf(b, "- [%s] %s (version %d)\n", s.Label, s.DocumentTitle, s.DocumentVersion)
		}
	}
}
