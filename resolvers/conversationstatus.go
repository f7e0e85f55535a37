package resolvers

import (
	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/internal/authz"
)

// Conversation status filters (docs/API.md, "Conversation status"): the
// status a client reads is computed (EXPIRED once the expiry has passed,
// internal/authz/status.go), so a status filter must compare that, not
// the stored column. statusFilter moves the status predicates of a
// generated where-input, and of its not/and/or, onto the engine's computed
// predicates.

// statusFilter rewrites w in place and returns it.
func (r *Resolver) statusFilter(w *ent.ConversationWhereInput) *ent.ConversationWhereInput {
	if w == nil {
		return nil
	}
	var ps []predicate.Conversation
	if w.Status != nil {
		ps = append(ps, authz.StatusIs(*w.Status, r.now()))
	}
	if w.StatusNEQ != nil {
		ps = append(ps, conversation.Not(authz.StatusIs(*w.StatusNEQ, r.now())))
	}
	if w.StatusIn != nil {
		ps = append(ps, authz.StatusIn(r.now(), w.StatusIn...))
	}
	if w.StatusNotIn != nil {
		ps = append(ps, conversation.Not(authz.StatusIn(r.now(), w.StatusNotIn...)))
	}
	w.Status, w.StatusNEQ, w.StatusIn, w.StatusNotIn = nil, nil, nil, nil
	w.AddPredicates(ps...)
	r.statusFilter(w.Not)
	for _, o := range w.Or {
		r.statusFilter(o)
	}
	for _, a := range w.And {
		r.statusFilter(a)
	}
	return w
}
