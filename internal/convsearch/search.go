package convsearch

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"sort"
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
	"github.com/ragchat/ragchat/internal/chat/tree"
	"github.com/ragchat/ragchat/internal/domain"
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
	// MaxCandidates bounds the matching messages (newest first) and the
	// matching titles a search ranks.
	MaxCandidates = 2000
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
	Score        float64
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
// ones), one hit per conversation, by score, then recency, then id.
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

// cursor is the decoded position of a hit.
type cursor struct {
	S  float64   `json:"s"`
	T  time.Time `json:"t"`
	ID uuid.UUID `json:"i"`
}

func search(ctx context.Context, c *ent.Client, r Request, owner *string, tenant string) (*Page, error) {
	terms, first, after, err := check(r)
	if err != nil {
		return nil, err
	}
	if err := checkRefs(ctx, c, r.Filter); err != nil {
		return nil, err
	}
	convPs := []predicate.Conversation{
		conversation.StatusNEQ(conversation.StatusDELETED),
		conversation.TemporaryExpiresAtIsNil(),
	}
	msgPs := []predicate.Message{}
	if owner != nil {
		convPs = append(convPs, conversation.UserID(*owner))
		msgPs = append(msgPs, message.OwnerID(*owner))
		terms = append(terms, OwnerTerm(tenant, *owner))
	}
	convPs = append(convPs, r.Filter.predicates()...)

	titleMatch := append(append([]predicate.Conversation{}, convPs...), func(s *sql.Selector) { s.Where(matchP(s, conversation.Table, terms)) })
	if r.Filter.From != nil {
		titleMatch = append(titleMatch, conversation.UpdatedAtGTE(*r.Filter.From))
	}
	if r.Filter.To != nil {
		titleMatch = append(titleMatch, conversation.UpdatedAtLT(*r.Filter.To))
	}
	titles, err := c.Conversation.Query().Where(titleMatch...).
		Order(ent.Desc(conversation.FieldUpdatedAt)).Limit(MaxCandidates).All(ctx)
	if err != nil {
		return nil, err
	}
	msgPs = append(msgPs, message.HasConversationWith(convPs...), func(s *sql.Selector) { s.Where(matchP(s, message.Table, terms)) })
	if r.Filter.From != nil {
		msgPs = append(msgPs, message.CreatedAtGTE(*r.Filter.From))
	}
	if r.Filter.To != nil {
		msgPs = append(msgPs, message.CreatedAtLT(*r.Filter.To))
	}
	msgs, err := c.Message.Query().Where(msgPs...).
		Order(ent.Desc(message.FieldCreatedAt), ent.Desc(message.FieldID)).Limit(MaxCandidates).All(ctx)
	if err != nil {
		return nil, err
	}
	qterms := terms
	if owner != nil {
		qterms = terms[:len(terms)-1]
	}
	best := map[uuid.UUID]*Hit{}
	for _, conv := range titles {
		h := &Hit{Conversation: conv, Kind: KindTitle, at: conv.UpdatedAt}
		h.Score = score(conv.Title, qterms) + 1 // a title beats a message of equal rank
		best[conv.ID] = h
	}
	var need []uuid.UUID
	for _, m := range msgs {
		s := score(m.Content, qterms)
		if h, ok := best[m.ConversationID]; ok && (h.Score > s || h.Score == s && !h.at.Before(m.CreatedAt)) {
			continue
		}
		if _, ok := best[m.ConversationID]; !ok {
			need = append(need, m.ConversationID)
		}
		best[m.ConversationID] = &Hit{Message: m, Kind: KindMessage, Score: s, at: m.CreatedAt}
	}
	if len(need) > 0 {
		convs, err := c.Conversation.Query().Where(conversation.IDIn(need...)).All(ctx)
		if err != nil {
			return nil, err
		}
		byID := make(map[uuid.UUID]*ent.Conversation, len(convs))
		for _, conv := range convs {
			byID[conv.ID] = conv
		}
		for _, id := range need {
			if conv := byID[id]; conv != nil && best[id].Conversation == nil {
				best[id].Conversation = conv
			}
		}
	}
	for id, h := range best {
		if h.Conversation == nil {
			if h.Message != nil {
				h.Conversation = loadConv(titles, h.Message.ConversationID)
			}
			if h.Conversation == nil {
				delete(best, id)
			}
		}
	}
	all := make([]*Hit, 0, len(best))
	for _, h := range best {
		all = append(all, h)
	}
	sort.Slice(all, func(i, j int) bool { return less(all[i], all[j]) })
	page := &Page{TotalCount: len(all)}
	start := 0
	if after != nil {
		start = sort.Search(len(all), func(i int) bool {
			return less(&Hit{Score: after.S, at: after.T, Conversation: &ent.Conversation{ID: after.ID}}, all[i])
		})
	}
	end := min(start+first, len(all))
	page.HasNext = end < len(all)
	for _, h := range all[start:end] {
		text := h.Conversation.Title
		if h.Message != nil {
			text = h.Message.Content
		}
		h.Snippet = MakeSnippet(text, qterms)
		if h.Message != nil {
			on, err := onCurrentBranch(ctx, c, h.Conversation, h.Message)
			if err != nil {
				return nil, err
			}
			h.OnCurrentBranch = &on
		}
		h.Cursor = encodeCursor(cursor{S: h.Score, T: h.at, ID: h.Conversation.ID})
		page.Hits = append(page.Hits, h)
	}
	if len(page.Hits) > 0 {
		page.StartCursor, page.EndCursor = page.Hits[0].Cursor, page.Hits[len(page.Hits)-1].Cursor
	}
	return page, nil
}

// onCurrentBranch reports whether m is on conv's current branch: an
// ancestor of (or) the current leaf, found by the walk up from the leaf
// that stops at m's depth.
func onCurrentBranch(ctx context.Context, c *ent.Client, conv *ent.Conversation, m *ent.Message) (bool, error) {
	if conv.CurrentLeafID == nil {
		return false, nil
	}
	return c.Message.Query().Where(message.ID(m.ID), tree.Path(*conv.CurrentLeafID, m.Depth)).Exist(ctx)
}

// loadConv finds id among convs.
func loadConv(convs []*ent.Conversation, id uuid.UUID) *ent.Conversation {
	for _, c := range convs {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// less orders hits: score desc, time desc, conversation id asc.
func less(a, b *Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if !a.at.Equal(b.at) {
		return a.at.After(b.at)
	}
	return strings.Compare(a.Conversation.ID.String(), b.Conversation.ID.String()) < 0
}

// score ranks text for the terms identically on both backends: the
// number of highlighted ranges, damped by the text's length.
func score(text string, terms []string) float64 {
	n := len(textsearch.Highlight(text, terms))
	s := float64(n) / math.Log2(2+float64(utf8.RuneCountInString(text))/64)
	return math.Round(s*1e6) / 1e6
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
