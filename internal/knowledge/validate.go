package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragchat/ragchat/internal/domain"
)

// Limits of a document's metadata and of names. They are byte lengths, the
// unit of the schema's validators.
const (
	// MaxTitleBytes is the longest document title.
	MaxTitleBytes = 500
	// MaxSourceURIBytes is the longest source URI.
	MaxSourceURIBytes = 2000
	// MaxKnowledgeBaseNameBytes is the longest knowledge base name.
	MaxKnowledgeBaseNameBytes = 200
	// MaxDescriptionBytes is the longest knowledge base description.
	MaxDescriptionBytes = 10_000
	// MaxReasonBytes is the longest reason given for a deletion.
	MaxReasonBytes = 2000
)

// DocumentInput is a document to ingest.
type DocumentInput struct {
	// Title names the document; it is shown in citations.
	Title string
	// SourceURI is where the document comes from. Re-ingesting the same
	// SourceURI (or, when it is empty, the same Title) into a knowledge
	// base replaces that document.
	SourceURI string
	// Content is the document text, Markdown or plain, UTF-8.
	Content string
	// ACL is who may read the document.
	ACL ACL
}

// validInput is a validated DocumentInput.
type validInput struct {
	title, sourceURI, content string
	acl                       normalizedACL
}

// validate checks in against the limits and returns it trimmed, or a
// BAD_USER_INPUT error.
func (in DocumentInput) validate(maxBytes int) (validInput, error) {
	v := validInput{
		title:     strings.TrimSpace(in.Title),
		sourceURI: strings.TrimSpace(in.SourceURI),
		content:   in.Content,
	}
	if err := validName("title", v.title, MaxTitleBytes); err != nil {
		return v, err
	}
	if len(v.sourceURI) > MaxSourceURIBytes {
		return v, domain.Errorf(domain.CodeBadUserInput, "the source URI is at most %d bytes, got %d", MaxSourceURIBytes, len(v.sourceURI))
	}
	if err := validText("the source URI", v.sourceURI); err != nil {
		return v, err
	}
	switch {
	case len(v.content) > maxBytes:
		return v, domain.Errorf(domain.CodeBadUserInput, "the document is %d bytes, more than the limit of %d bytes", len(v.content), maxBytes).
			With("field", "content").With("limit", "documentSize").With("max", maxBytes)
	case !utf8.ValidString(v.content):
		return v, domain.Errorf(domain.CodeBadUserInput, "the document content is not valid UTF-8")
	case strings.TrimSpace(v.content) == "":
		return v, domain.Errorf(domain.CodeBadUserInput, "the document content is empty")
	}
	acl, err := in.ACL.normalize()
	if err != nil {
		return v, err
	}
	v.acl = acl
	return v, nil
}

// validName checks a required single-line name of at most max bytes.
func validName(what, s string, max int) error {
	switch {
	case s == "":
		return domain.Errorf(domain.CodeBadUserInput, "the %s must not be empty", what)
	case len(s) > max:
		return domain.Errorf(domain.CodeBadUserInput, "the %s is at most %d bytes, got %d", what, max, len(s))
	}
	return validText("the "+what, s)
}

// validText rejects invalid UTF-8 and control characters (which PostgreSQL
// cannot store, for NUL, or which have no place in a single-line value).
func validText(what, s string) error {
	if !utf8.ValidString(s) {
		return domain.Errorf(domain.CodeBadUserInput, "%s is not valid UTF-8", what)
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return domain.Errorf(domain.CodeBadUserInput, "%s must not contain control characters", what)
	}
	return nil
}
