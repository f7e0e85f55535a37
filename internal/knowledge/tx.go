package knowledge

import "github.com/ragchat/ragchat/ent"

// Entities read or written inside a transaction stay bound to it: every
// later query through them (an edge such as Document.knowledgeBase, loaded
// by the API after the service returns) fails with "sql: transaction has
// already been committed or rolled back". The service therefore returns
// them detached, bound to the client again, as internal/chat does.

// detachDocument returns doc, and its loaded grants, detached from the
// finished transaction they were read in.
func detachDocument(doc *ent.Document) *ent.Document {
	if doc == nil {
		return nil
	}
	for _, g := range doc.Edges.Grants {
		g.Unwrap()
	}
	return doc.Unwrap()
}
