package chat

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/attachment"
	"github.com/ragchat/ragchat/internal/prompt"
)

// TestMergeAttachmentEvidence: the best chunk of each pinned attachment is
// always kept, below the threshold and past k; other attachment hits
// compete with the knowledge base only when every ask searches
// attachments, and only at or above the threshold; the result is best
// first.
func TestMergeAttachmentEvidence(t *testing.T) {
	pinned, other := uuid.New(), uuid.New()
	hit := func(att uuid.UUID, score float64) attachment.Hit {
		return attachment.Hit{Chunk: &ent.AttachmentChunk{ID: uuid.New(), Content: "c"}, Attachment: &ent.Attachment{ID: att, Name: att.String()[:4]}, Score: score}
	}
	doc := func(score float64) prompt.Evidence {
		return prompt.Evidence{ChunkID: uuid.New(), DocumentID: uuid.New(), Score: score}
	}
	type want struct {
		att   uuid.UUID // uuid.Nil: a document
		score float64
	}
	for _, tc := range []struct {
		name   string
		kb     []prompt.Evidence
		hits   []attachment.Hit
		pinned []uuid.UUID
		all    bool
		k      int
		want   []want
	}{
		{"no pins, all: best k above threshold", []prompt.Evidence{doc(0.9), doc(0.5)}, []attachment.Hit{hit(other, 0.8), hit(other, 0.1)}, nil, true, 2,
			[]want{{uuid.Nil, 0.9}, {other, 0.8}}},
		{"a pin below threshold displaces the weakest", []prompt.Evidence{doc(0.9), doc(0.5)}, []attachment.Hit{hit(pinned, 0.05), hit(pinned, 0.01)}, []uuid.UUID{pinned}, false, 2,
			[]want{{uuid.Nil, 0.9}, {pinned, 0.05}}},
		{"one chunk per pin; without all, unpinned hits are dropped", []prompt.Evidence{doc(0.4)}, []attachment.Hit{hit(other, 0.95), hit(pinned, 0.6), hit(pinned, 0.5)}, []uuid.UUID{pinned}, false, 3,
			[]want{{pinned, 0.6}, {uuid.Nil, 0.4}}},
		{"pins past k are all kept", []prompt.Evidence{doc(0.9)}, []attachment.Hit{hit(pinned, 0.2), hit(other, 0.1)}, []uuid.UUID{pinned, other}, true, 1,
			[]want{{pinned, 0.2}, {other, 0.1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeAttachmentEvidence(tc.kb, tc.hits, tc.pinned, tc.all, 0.3, tc.k)
			var gotW []want
			for _, e := range got {
				gotW = append(gotW, want{e.AttachmentID, e.Score})
			}
			require.Equal(t, tc.want, gotW)
		})
	}
}
