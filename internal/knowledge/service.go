package knowledge

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/llm"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/tokens"
)

// Service ingests and administers the knowledge of the viewer's tenant. All
// of its methods act as the viewer in ctx, so the Ent privacy policies
// decide what they may read and write. It is safe for concurrent use.
type Service struct {
	client   *ent.Client
	embedder llm.Embedder
	counter  tokens.Counter
	opts     Options
}

// NewService returns a Service that stores through client, embeds chunks
// with embedder and sizes them with counter (tokens.Default() when nil).
func NewService(client *ent.Client, embedder llm.Embedder, counter tokens.Counter, opts Options) *Service {
	if counter == nil {
		counter = tokens.Default()
	}
	return &Service{client: client, embedder: embedder, counter: counter, opts: opts.withDefaults()}
}

// CreateKnowledgeBase creates a knowledge base in the viewer's tenant,
// recording the service's embedding model. Only curators may; a name that
// is already taken in the tenant is a CONFLICT.
func (s *Service) CreateKnowledgeBase(ctx context.Context, name, description string) (*ent.KnowledgeBase, error) {
	const action = "create a knowledge base"
	if _, err := requireCurator(ctx, action); err != nil {
		return nil, err
	}
	name = strings.TrimSpace(name)
	description = strings.TrimSpace(description)
	if err := validName("knowledge base name", name, MaxKnowledgeBaseNameBytes); err != nil {
		return nil, err
	}
	switch {
	case len(description) > MaxDescriptionBytes:
		return nil, domain.Errorf(domain.CodeBadUserInput, "the description is at most %d bytes, got %d", MaxDescriptionBytes, len(description))
	case !utf8.ValidString(description) || strings.ContainsRune(description, 0):
		return nil, domain.Errorf(domain.CodeBadUserInput, "the description must be valid UTF-8 without NUL characters")
	}
	kb, err := s.client.KnowledgeBase.Create().
		SetName(name).
		SetDescription(description).
		SetEmbeddingModel(s.embedder.EmbeddingModel()).
		SetEmbeddingDimensions(domain.EmbeddingDimensions).
		Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, domain.Wrap(err, domain.CodeConflict, "a knowledge base named \""+name+"\" already exists")
	}
	return kb, store.DomainError(err, "knowledge base")
}
