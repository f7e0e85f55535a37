package chat

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/source"
	"github.com/ragchat/ragchat/internal/broker"
)

// attemptTopic is the broker topic of an attempt's stream. The
// conversation and viewer feeds' topics are internal/feed's.
func attemptTopic(id uuid.UUID) string { return "attempt:" + id.String() }

// attemptPayload is the JSON body of an attempt event on the broker. It is
// kept small (NOTIFY payloads must stay under 8000 bytes): sources carry
// short snippets only.
type attemptPayload struct {
	Text            string         `json:"t,omitempty"`
	Question        string         `json:"q,omitempty"`
	RequiresHistory bool           `json:"h,omitempty"`
	Sources         []sourcePacket `json:"s,omitempty"`
	Code            string         `json:"c,omitempty"`
	Message         string         `json:"m,omitempty"`
}

// sourcePacket is a citation snapshot on the wire, before it is saved.
type sourcePacket struct {
	ID       uuid.UUID `json:"id"`
	Chunk    uuid.UUID `json:"ch"`
	Document uuid.UUID `json:"d"`
	Label    string    `json:"l"`
	Rank     int       `json:"r"`
	Score    float64   `json:"sc"`
	Snippet  string    `json:"sn"`
	Title    string    `json:"ti"`
	Version  int       `json:"v"`
	Hash     string    `json:"h,omitempty"`
	// Attachment is set for a chunk of a conversation attachment: Chunk
	// is then the attachment chunk, Document is zero.
	Attachment *uuid.UUID `json:"at,omitempty"`
}

func (p sourcePacket) source(attemptID uuid.UUID) *ent.Source {
	chunk, doc := p.Chunk, p.Document
	if p.Attachment != nil {
		return &ent.Source{
			ID: p.ID, AttemptID: attemptID, Kind: source.KindATTACHMENT, AttachmentID: p.Attachment, Label: p.Label,
			Rank: p.Rank, Score: p.Score, Snippet: p.Snippet, DocumentTitle: p.Title, DocumentVersion: p.Version,
			ChunkHash: nonEmpty(p.Hash),
		}
	}
	return &ent.Source{
		ID: p.ID, AttemptID: attemptID, ChunkID: &chunk, DocumentID: &doc, Label: p.Label,
		Rank: p.Rank, Score: p.Score, Snippet: p.Snippet, DocumentTitle: p.Title, DocumentVersion: p.Version,
		ChunkHash: nonEmpty(p.Hash), Kind: source.KindDOCUMENT,
	}
}

// nonEmpty is a pointer to s, or nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// publishAttempt sends one attempt event. A broker failure never fails the
// answer: subscribers resync from the database.
func (e *Engine) publishAttempt(ctx context.Context, id uuid.UUID, kind AttemptEventKind, seq int, p attemptPayload) {
	data, err := json.Marshal(p)
	if err != nil {
		e.log.ErrorContext(ctx, "encode attempt event", "err", err)
		return
	}
	_, err = e.broker.Publish(context.WithoutCancel(ctx), broker.Event{Topic: attemptTopic(id), Kind: string(kind), Seq: seq, Data: data})
	if err != nil {
		e.log.WarnContext(ctx, "publish attempt event", "attempt", id, "kind", kind, "err", err)
	}
}
