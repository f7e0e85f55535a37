package convsearch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/conversationtag"
	"github.com/ragchat/ragchat/ent/message"
	"github.com/ragchat/ragchat/ent/predicate"
	"github.com/ragchat/ragchat/ent/searchentry"
	"github.com/ragchat/ragchat/internal/authz"
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store/stmtplan"
	"github.com/ragchat/ragchat/internal/textsearch"
	"github.com/ragchat/ragchat/internal/viewer"
)

// The bounds of a search (docs/API.md, "Searching conversations").
const (
	// MaxQueryChars bounds the query text, in characters.
	MaxQueryChars = 256
	// DefaultFirst and MaxFirst are the default and largest page size.
	DefaultFirst = 20
	MaxFirst     = 100
	// MaxTagIDs bounds the tag ids of a filter (as the lists' filters).
	MaxTagIDs = 50
)

// Kind says where a hit matched.
type Kind string

// The kinds of hits.
const (
	KindTitle   Kind = "TITLE"
	KindMessage Kind = "MESSAGE"
)

// Filter narrows a search by the conversation's organisation and the
// time of the hit (a message's creation, a title's last change of the
// conversation). Every set field must hold.
type Filter struct {
	Pinned, Archived *bool
	FolderID         *uuid.UUID
	TagIDs           []uuid.UUID
	From, To         *time.Time
}

// Request is one search: Query's terms, the filter, the page.
type Request struct {
	Query  string
	Filter Filter
	First  *int
	After  *string
	// UserID, for an admin search, narrows the tenant to one user.
	UserID *string
}

// Hit is the best match of one conversation.
type Hit struct {
	Conversation *ent.Conversation
	Message      *ent.Message // nil for a title hit
	Kind         Kind
	Snippet      Snippet
	// Score is the hit's tier: 2 for a title, 1 for a message.
	Score float64
	// OnCurrentBranch says, for a message hit, whether the message is on
	// the conversation's current branch.
	OnCurrentBranch *bool
	Cursor          string
	at              time.Time
}

// Page is one page of hits, best first, and the number of conversations hit.
type Page struct {
	Hits        []*Hit
	HasNext     bool
	TotalCount  int
	StartCursor string
	EndCursor   string
}

// Search finds the viewer's own conversations whose title or messages
// contain every term of the request's query (never DELETED or temporary
// ones), one hit per conversation, best first (Rank: a title above a
// message, then newest first, then conversation id).
func Search(ctx context.Context, c *ent.Client, r Request) (*Page, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	uid := v.UserID
	return search(ctx, c, r, &uid, v.TenantID)
}

// AdminSearch is Search over the admin's whole tenant (or r.UserID's
// conversations in it). The rows read are audited by the read-audit
// interceptor like any admin read: only the hits returned are loaded.
func AdminSearch(ctx context.Context, c *ent.Client, r Request) (*Page, error) {
	v, err := viewer.RequireAdmin(ctx)
	if err != nil {
		return nil, err
	}
	return search(ctx, c, r, r.UserID, v.TenantID)
}

// cursor is the decoded position of a hit: its rank and conversation.
type cursor struct {
	R  int64     `json:"r"`
	ID uuid.UUID `json:"i"`
}

// best is a conversation's best entry's rank, as the ranking statement
// returns it.
type best struct {
	ConversationID uuid.UUID `json:"conversation_id"`
	Rank           int64     `json:"best"`
}

// search runs the request in three steps of a few statements each:
//  1. one statement ranks the conversations: the entries that match every
//     term (the GIN index, or the FTS5 table, answers it: the owner's or the
//     tenant's term is one of the terms), of live conversations that pass
//     the filter, grouped by conversation with the best rank, after the
//     cursor, best first, one more than the page; a second counts them;
//  2. the page's best entries, conversations and messages, by id;
//  3. whether each message hit is on its conversation's current branch.
func search(ctx context.Context, c *ent.Client, r Request, owner *string, tenant string) (*Page, error) {
	// A broad term and a rare one want different plans: never a generic one.
	ctx = stmtplan.PerExecution(ctx)
	terms, first, after, err := check(r)
	if err != nil {
		return nil, err
	}
	if err := checkRefs(ctx, c, r.Filter); err != nil {
		return nil, err
	}
	qterms := terms
	scope := TenantTerm(tenant)
	if owner != nil {
		scope = OwnerTerm(tenant, *owner)
	}
	preds := []predicate.SearchEntry{
		func(s *sql.Selector) { s.Where(matchP(s, append(append([]string{}, terms...), scope))) },
		searchentry.HasConversationWith(append([]predicate.Conversation{
			conversation.StatusNEQ(conversation.StatusDELETED),
			authz.NotTemporary(),
		}, r.Filter.predicates()...)...),
	}
	if owner != nil {
		preds = append(preds, searchentry.OwnerID(*owner))
	}
	if r.Filter.From != nil {
		preds = append(preds, searchentry.AtGTE(*r.Filter.From))
	}
	if r.Filter.To != nil {
		preds = append(preds, searchentry.AtLT(*r.Filter.To))
	}
	var ranked []best
	err = c.SearchEntry.Query().Where(preds...).Modify(func(s *sql.Selector) {
		conv, rank := s.C(searchentry.FieldConversationID), s.C(searchentry.FieldRank)
		s.Select(conv, sql.As(sql.Max(rank), "best")).GroupBy(conv)
		if after != nil {
			s.Having(sql.P(func(b *sql.Builder) {
				b.WriteString("MAX(").Ident(rank).WriteString(") < ").Arg(after.R).
					WriteString(" OR (MAX(").Ident(rank).WriteString(") = ").Arg(after.R).
					WriteString(" AND ").Ident(conv).WriteString(" > ").Arg(after.ID).WriteString(")")
			}))
		}
		s.OrderBy(sql.Desc("best"), conv).Limit(first + 1)
	}).Scan(ctx, &ranked)
	if err != nil {
		return nil, err
	}
	total, err := c.SearchEntry.Query().Where(preds...).Unique(true).Select(searchentry.FieldConversationID).Count(ctx)
	if err != nil {
		return nil, err
	}
	page := &Page{TotalCount: total, HasNext: len(ranked) > first}
	ranked = ranked[:min(len(ranked), first)]
	hits, err := load(ctx, c, ranked, qterms)
	if err != nil {
		return nil, err
	}
	page.Hits = hits
	if len(hits) > 0 {
		page.StartCursor, page.EndCursor = hits[0].Cursor, hits[len(hits)-1].Cursor
	}
	return page, nil
}

// load makes the hits of ranked (best first): each conversation's best
// entry, the conversation, its message and whether that message is on the
// current branch, with the snippet of terms. A row that is no longer
// visible by the time it is read (deleted meanwhile) is left out.
func load(ctx context.Context, c *ent.Client, ranked []best, terms []string) ([]*Hit, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	convIDs := make([]uuid.UUID, 0, len(ranked))
	ranks := make([]int64, 0, len(ranked))
	for _, b := range ranked {
		convIDs, ranks = append(convIDs, b.ConversationID), append(ranks, b.Rank)
	}
	entries, err := c.SearchEntry.Query().
		Where(searchentry.ConversationIDIn(convIDs...), searchentry.RankIn(ranks...)).
		Order(ent.Asc(searchentry.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	chosen := map[uuid.UUID]*ent.SearchEntry{}
	var msgIDs []uuid.UUID
	for _, b := range ranked {
		for _, e := range entries {
			if e.ConversationID == b.ConversationID && e.Rank == b.Rank {
				chosen[b.ConversationID] = e
				if e.MessageID != nil {
					msgIDs = append(msgIDs, *e.MessageID)
				}
				break
			}
		}
	}
	convs, err := c.Conversation.Query().Where(conversation.IDIn(convIDs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	convByID := make(map[uuid.UUID]*ent.Conversation, len(convs))
	for _, conv := range convs {
		convByID[conv.ID] = conv
	}
	msgByID := map[uuid.UUID]*ent.Message{}
	if len(msgIDs) > 0 {
		msgs, err := c.Message.Query().Where(message.IDIn(msgIDs...)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			msgByID[m.ID] = m
		}
	}
	var hits []*Hit
	for _, b := range ranked {
		e, conv := chosen[b.ConversationID], convByID[b.ConversationID]
		if e == nil || conv == nil {
			continue
		}
		h := &Hit{Conversation: conv, Kind: KindTitle, Score: tierTitle, at: e.At}
		text := conv.Title
		if e.MessageID != nil {
			m := msgByID[*e.MessageID]
			if m == nil {
				continue
			}
			h.Message, h.Kind, h.Score, text = m, KindMessage, tierMessage, m.Content
		}
		h.Snippet = MakeSnippet(text, terms)
		h.Cursor = encodeCursor(cursor{R: b.Rank, ID: conv.ID})
		hits = append(hits, h)
	}
	if err := markBranches(ctx, c, hits); err != nil {
		return nil, err
	}
	return hits, nil
}

// markBranches sets OnCurrentBranch of the message hits with one
// statement: a message is on its conversation's current branch when it
// is an ancestor of (or) the current leaf, found by the walk up from the
// leaf that stops at the message's depth.
func markBranches(ctx context.Context, c *ent.Client, hits []*Hit) error {
	var ps []predicate.Message
	for _, h := range hits {
		if h.Message == nil {
			continue
		}
		off := false
		h.OnCurrentBranch = &off
		if leaf := h.Conversation.CurrentLeafID; leaf != nil {
			ps = append(ps, message.And(message.ID(h.Message.ID), tree.Path(*leaf, h.Message.Depth)))
		}
	}
	if len(ps) == 0 {
		return nil
	}
	on, err := c.Message.Query().Where(message.Or(ps...)).IDs(ctx)
	if err != nil {
		return err
	}
	for _, h := range hits {
		if h.Message != nil && slices.Contains(on, h.Message.ID) {
			t := true
			h.OnCurrentBranch = &t
		}
	}
	return nil
}

// check validates the request and returns its terms, page size and cursor.
func check(r Request) ([]string, int, *cursor, error) {
	q := strings.TrimSpace(r.Query)
	if q == "" {
		return nil, 0, nil, domain.BadInput("query", "the search query is empty")
	}
	if utf8.RuneCountInString(r.Query) > MaxQueryChars {
		return nil, 0, nil, domain.OverLimit("query", "searchQueryChars", MaxQueryChars, "a search query has at most %d characters", MaxQueryChars)
	}
	terms := textsearch.Query(q)
	if len(terms) == 0 {
		return nil, 0, nil, domain.BadInput("query", "the search query has no words to search for")
	}
	first := DefaultFirst
	if r.First != nil {
		first = *r.First
	}
	if first < 0 || first > MaxFirst {
		return nil, 0, nil, domain.OverLimit("first", "searchPageSize", MaxFirst, "first is between 0 and %d", MaxFirst)
	}
	if len(r.Filter.TagIDs) > MaxTagIDs {
		return nil, 0, nil, domain.OverLimit("filter.tagIds", "tagIds", MaxTagIDs, "a search filter has at most %d tag ids", MaxTagIDs)
	}
	var after *cursor
	if r.After != nil {
		c, err := decodeCursor(*r.After)
		if err != nil {
			return nil, 0, nil, domain.BadInput("after", "the cursor is not a search cursor")
		}
		after = &c
	}
	return terms, first, after, nil
}

// predicates are the filter's conversation predicates (without the time).
func (f Filter) predicates() []predicate.Conversation {
	var ps []predicate.Conversation
	if f.Pinned != nil {
		if *f.Pinned {
			ps = append(ps, conversation.PinnedAtNotNil())
		} else {
			ps = append(ps, conversation.PinnedAtIsNil())
		}
	}
	if f.FolderID != nil {
		ps = append(ps, conversation.FolderID(*f.FolderID))
	}
	for _, id := range f.TagIDs {
		ps = append(ps, conversation.HasConversationTagsWith(conversationtag.TagID(id)))
	}
	if f.Archived != nil {
		if *f.Archived {
			ps = append(ps, conversation.StatusEQ(conversation.StatusARCHIVED))
		} else {
			ps = append(ps, conversation.StatusEQ(conversation.StatusACTIVE))
		}
	}
	return ps
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	return c, err
}
