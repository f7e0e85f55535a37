package portability

import (
	"bytes"
	"context"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/jsonenc"
	"github.com/ragchat/ragchat/internal/viewer"
)

// Export is one exported conversation: its format, a file name to save it
// under, its media type and its content.
type Export struct {
	Format      Format
	Filename    string
	ContentType string
	Content     string
}

// ExportConversation exports conversation id of the viewer in format f
// (package comment).
func (s *Service) ExportConversation(ctx context.Context, id uuid.UUID, f Format) (*Export, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	if f != FormatJSON && f != FormatMarkdown {
		return nil, domain.BadInput("format", "unknown export format %q", f)
	}
	conv, err := s.ownConversation(ctx, v, id)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	out := &Export{Format: f, Filename: filename(conv)}
	if f == FormatJSON {
		if err := s.writeDocument(ctx, &buf, conv, s.now()); err != nil {
			return nil, err
		}
		out.Filename += ".json"
		out.ContentType = "application/json"
	} else {
		var ms []Message
		if err := s.eachMessagePage(ctx, conv, func(page []Message) error {
			ms = append(ms, page...)
			return nil
		}); err != nil {
			return nil, err
		}
		writeMarkdown(&buf, s.meta(conv), ms)
		out.Filename += ".md"
		out.ContentType = "text/markdown; charset=utf-8"
	}
	out.Content = buf.String()
	return out, nil
}

// documentHead is a Document without its messages, which writeDocument
// streams after it.
type documentHead struct {
	Version      string       `json:"version"`
	ExportedAt   time.Time    `json:"exportedAt"`
	Conversation Conversation `json:"conversation"`
}

// writeDocument writes conv's Document to w on one line ending in a
// newline, a page of messages at a time.
func (s *Service) writeDocument(ctx context.Context, w io.Writer, conv *ent.Conversation, at time.Time) error {
	head, err := jsonenc.Marshal(documentHead{Version: Version, ExportedAt: at.UTC(), Conversation: s.meta(conv)})
	if err != nil {
		return err
	}
	// The head's closing brace gives way to the messages.
	if _, err := io.WriteString(w, string(head[:len(head)-1])+`,"messages":[`); err != nil {
		return err
	}
	first := true
	err = s.eachMessagePage(ctx, conv, func(page []Message) error {
		for _, m := range page {
			b, err := jsonenc.Marshal(m)
			if err != nil {
				return err
			}
			if !first {
				b = append([]byte{','}, b...)
			}
			first = false
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "]}\n")
	return err
}

// filename is the base name an export of conv is saved under: its title's
// letters and digits (at most 60), hyphens between words, and the start
// of its id.
func filename(conv *ent.Conversation) string {
	var b strings.Builder
	n, gap := 0, false
	for _, r := range conv.Title {
		if n == 60 {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if gap && b.Len() > 0 {
				b.WriteByte('-')
			}
			gap = false
			b.WriteRune(unicode.ToLower(r))
			n++
			continue
		}
		gap = true
	}
	name := b.String()
	if name == "" {
		name = "conversation"
	}
	return name + "-" + conv.ID.String()[:8]
}
