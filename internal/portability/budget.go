package portability

import (
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/internal/domain"
)

// budget counts the text an import will store while its content is
// parsed, so that an import is refused before anything is written, and
// before any copy is made, as soon as it would store more than its
// limits allow. What a message costs is what the service writes for it
// (importMsg): its content and, for an answer, its attempt's
// copies of the answer and of its question. One budget spans every
// conversation of an import.
type budget struct {
	lim  Limits
	used int
}

// message counts the message named field, of role, with content; question
// is the content of an answer's question. It refuses content longer than
// Limits.MessageBytes (limit "importMessageSize", on field) and an import
// whose text goes over Limits.TextBytes (limit "importText", on
// "content").
func (b *budget) message(field string, role message.Role, content, question string) error {
	if err := b.messageSize(field, len(content)); err != nil {
		return err
	}
	cost := len(content)
	if role == message.RoleASSISTANT {
		cost += len(content) + len(question)
	}
	b.used += cost
	if n := b.lim.TextBytes; b.used > n {
		return domain.OverLimit("content", LimitImportText, n,
			"the import would store more than %d bytes of text (messages, and each answer's copy of its question and answer)", n)
	}
	return nil
}

// messageSize refuses a message, named field, of size bytes when it is
// longer than Limits.MessageBytes.
func (b *budget) messageSize(field string, size int) error {
	if n := b.lim.MessageBytes; size > n {
		return domain.OverLimit(field, LimitImportMessageSize, n, "%s is longer than %d bytes", field, n)
	}
	return nil
}
