package resolvers

import (
	"context"

	"entgo.io/contrib/entgql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/graph/model"
	"github.com/ragchat/ragchat/internal/convsearch"
	"github.com/ragchat/ragchat/internal/domain"
)

// searchConversations runs a conversation search (convsearch.Search, or
// AdminSearch with admin) and maps the page to the connection. A cursor
// carries the hit's conversation id and convsearch's opaque position.
func (r *Resolver) searchConversations(ctx context.Context, admin bool, query string, userID *string, filter *model.ConversationSearchFilter, first *int, after *Cursor) (*model.ConversationSearchHitConnection, error) {
	req := convsearch.Request{Query: query, First: first, UserID: userID}
	if filter != nil {
		req.Filter = convsearch.Filter{Pinned: filter.Pinned, Archived: filter.Archived, FolderID: filter.FolderID,
			TagIDs: filter.TagIds, From: filter.From, To: filter.To}
	}
	if after != nil {
		pos, ok := after.Value.(string)
		if !ok {
			return nil, domain.BadInput("after", "the cursor is not a search cursor")
		}
		req.After = &pos
	}
	search := convsearch.Search
	if admin {
		search = convsearch.AdminSearch
	}
	page, err := search(ctx, r.client, req)
	if err != nil {
		return nil, err
	}
	out := &model.ConversationSearchHitConnection{Edges: []*model.ConversationSearchHitEdge{}, TotalCount: &page.TotalCount,
		PageInfo: &entgql.PageInfo[uuid.UUID]{HasNextPage: page.HasNext, HasPreviousPage: after != nil}}
	for _, h := range page.Hits {
		hl := make([]*model.TextRange, 0, len(h.Snippet.Highlights))
		for _, x := range h.Snippet.Highlights {
			hl = append(hl, &model.TextRange{Start: x.Start, End: x.End})
		}
		c := entgql.Cursor[uuid.UUID]{ID: h.Conversation.ID, Value: h.Cursor}
		out.Edges = append(out.Edges, &model.ConversationSearchHitEdge{Cursor: c, Node: &model.ConversationSearchHit{
			Conversation: h.Conversation, Message: h.Message, MatchKind: model.SearchMatchKind(h.Kind),
			Snippet:         &model.SearchSnippet{Text: h.Snippet.Text, Highlights: hl},
			OnCurrentBranch: h.OnCurrentBranch, Score: h.Score,
		}})
	}
	if n := len(out.Edges); n > 0 {
		out.PageInfo.StartCursor, out.PageInfo.EndCursor = &out.Edges[0].Cursor, &out.Edges[n-1].Cursor
	}
	return out, nil
}
