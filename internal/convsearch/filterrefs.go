package convsearch

import (
	"context"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/folder"
	"github.com/ragchat/ragchat/ent/tag"
	"github.com/ragchat/ragchat/internal/domain"
)

// checkRefs checks that the filter's folder and tags are ones the viewer
// may see (read through the privacy rules): another user's, another
// tenant's and an unknown one are the same NOT_FOUND, as an id argument
// anywhere else in the API, rather than an empty page.
func checkRefs(ctx context.Context, c *ent.Client, f Filter) error {
	if f.FolderID != nil {
		ok, err := c.Folder.Query().Where(folder.ID(*f.FolderID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return domain.NotFound("folder")
		}
	}
	if len(f.TagIDs) == 0 {
		return nil
	}
	seen := make(map[uuid.UUID]bool, len(f.TagIDs))
	ids := make([]uuid.UUID, 0, len(f.TagIDs))
	for _, id := range f.TagIDs {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	n, err := c.Tag.Query().Where(tag.IDIn(ids...)).Count(ctx)
	if err != nil {
		return err
	}
	if n != len(ids) {
		return domain.NotFound("tag")
	}
	return nil
}
