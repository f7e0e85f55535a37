package organise

import (
	"context"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
	"github.com/ragchat/ragchat/ent/conversation"
	"github.com/ragchat/ragchat/ent/folder"
	"github.com/ragchat/ragchat/internal/domain"
	"github.com/ragchat/ragchat/internal/store"
	"github.com/ragchat/ragchat/internal/viewer"
)

// FolderInput creates a folder: a name of 1 to 100 characters after
// trimming, an optional parent (one of the viewer's folders) and an
// optional position among its siblings (nil: after the last).
type FolderInput struct {
	Name     string
	ParentID *uuid.UUID
	Position *int
}

// FolderPatch changes a folder: nil fields stay. With SetParent, ParentID
// is the new parent (nil: the top level); a move without a Position puts
// the folder after the last of its new siblings.
type FolderPatch struct {
	Name      *string
	SetParent bool
	ParentID  *uuid.UUID
	Position  *int
}

// Folders returns the viewer's own folders in tree order (folderTree.ordered).
func (s *Service) Folders(ctx context.Context) ([]*ent.Folder, error) {
	v, err := viewer.Require(ctx)
	if err != nil {
		return nil, err
	}
	fs, err := s.client.Folder.Query().Where(folder.UserID(v.UserID)).All(ctx)
	if err != nil {
		return nil, store.DomainError(err, "folder")
	}
	return newFolderTree(fs).ordered(), nil
}

// CreateFolder creates a folder of the viewer. A parent that is not one of
// their folders is NOT_FOUND; nesting deeper than FolderDepth or more than
// FoldersPerUser folders is BAD_USER_INPUT with extensions.limit.
func (s *Service) CreateFolder(ctx context.Context, in FolderInput) (*ent.Folder, error) {
	name, err := checkFolderName(in.Name)
	if err != nil {
		return nil, err
	}
	if err := checkPosition(in.Position); err != nil {
		return nil, err
	}
	var created *ent.Folder
	err = s.withFolders(ctx, func(tx *ent.Tx, v *viewer.Viewer, t folderTree) error {
		if len(t.byID) >= s.limits.FoldersPerUser {
			return domain.OverLimit("input", LimitFoldersPerUser, s.limits.FoldersPerUser,
				"a user has at most %d folders", s.limits.FoldersPerUser)
		}
		if in.ParentID != nil {
			if t.byID[*in.ParentID] == nil {
				return domain.NotFound("folder")
			}
			if t.depth(*in.ParentID)+1 > s.limits.FolderDepth {
				return tooDeep(s.limits.FolderDepth)
			}
		}
		pos := t.nextPosition(in.ParentID)
		if in.Position != nil {
			pos = *in.Position
		}
		var err error
		created, err = tx.Folder.Create().SetUserID(v.UserID).SetName(name).
			SetNillableParentID(in.ParentID).SetPosition(pos).Save(ctx)
		return store.DomainError(err, "folder")
	})
	if err != nil {
		return nil, err
	}
	return created.Unwrap(), nil
}

// UpdateFolder renames, moves or reorders one of the viewer's own folders.
// Another user's folder, or a new parent that is not the viewer's, is
// NOT_FOUND; a move into the folder itself or below it is BAD_USER_INPUT
// with extensions.field "parentId", one that nests deeper than
// FolderDepth BAD_USER_INPUT with extensions.limit "folderDepth".
func (s *Service) UpdateFolder(ctx context.Context, id uuid.UUID, p FolderPatch) (*ent.Folder, error) {
	var name string
	var err error
	if p.Name != nil {
		if name, err = checkFolderName(*p.Name); err != nil {
			return nil, err
		}
	}
	if err := checkPosition(p.Position); err != nil {
		return nil, err
	}
	var out *ent.Folder
	err = s.withFolders(ctx, func(tx *ent.Tx, _ *viewer.Viewer, t folderTree) error {
		f := t.byID[id]
		if f == nil {
			return domain.NotFound("folder")
		}
		out = f
		u := tx.Folder.UpdateOne(f)
		changed := false
		if p.Name != nil && name != f.Name {
			u.SetName(name)
			changed = true
		}
		moved := p.SetParent && !sameID(p.ParentID, f.ParentID)
		if moved {
			if p.ParentID == nil {
				u.ClearParentID()
			} else {
				if t.byID[*p.ParentID] == nil {
					return domain.NotFound("folder")
				}
				if t.within(id, *p.ParentID) {
					return domain.BadInput(parentField, "a folder cannot move into itself or one of its folders")
				}
				if t.depth(*p.ParentID)+t.height(id) > s.limits.FolderDepth {
					return tooDeep(s.limits.FolderDepth)
				}
				u.SetParentID(*p.ParentID)
			}
			changed = true
		}
		switch {
		case p.Position != nil && *p.Position != f.Position:
			u.SetPosition(*p.Position)
			changed = true
		case p.Position == nil && moved:
			u.SetPosition(t.nextPosition(p.ParentID))
		}
		if !changed {
			return nil
		}
		var err error
		out, err = u.Save(ctx)
		return store.DomainError(err, "folder")
	})
	if err != nil {
		return nil, err
	}
	return out.Unwrap(), nil
}

// DeleteFolder deletes one of the viewer's own folders in one transaction:
// its child folders move up to its parent (keeping their positions) and
// its conversations become unfiled, each with its version bumped; they are
// published as updated after the commit.
func (s *Service) DeleteFolder(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	var unfiled []uuid.UUID
	err := s.withFolders(ctx, func(tx *ent.Tx, v *viewer.Viewer, t folderTree) error {
		f := t.byID[id]
		if f == nil {
			return domain.NotFound("folder")
		}
		if kids := t.children[id]; len(kids) > 0 {
			u := tx.Folder.Update().Where(folder.ParentID(id), folder.UserID(v.UserID))
			if f.ParentID == nil {
				u.ClearParentID()
			} else {
				u.SetParentID(*f.ParentID)
			}
			if err := u.Exec(ctx); err != nil {
				return store.DomainError(err, "folder")
			}
		}
		var err error
		unfiled, err = tx.Conversation.Query().
			Where(conversation.UserID(v.UserID), conversation.FolderID(id)).IDs(ctx)
		if err != nil {
			return store.DomainError(err, "conversation")
		}
		if len(unfiled) > 0 {
			if err := tx.Conversation.Update().Where(conversation.IDIn(unfiled...)).
				ClearFolderID().AddVersion(1).Exec(ctx); err != nil {
				return store.DomainError(err, "conversation")
			}
		}
		// Conversations hidden from the viewer (DELETED ones) lose the
		// folder through the foreign key (ON DELETE SET NULL).
		return store.DomainError(tx.Folder.DeleteOneID(id).Exec(ctx), "folder")
	})
	if err != nil {
		return uuid.Nil, err
	}
	s.publish(ctx, unfiled)
	return id, nil
}

// withFolders runs fn in a transaction over the viewer's folders, read
// and, on PostgreSQL, locked (FOR UPDATE) so that concurrent changes of
// one user's folders run one after the other and cannot build a cycle
// together; SQLite serialises writing transactions by itself.
func (s *Service) withFolders(ctx context.Context, fn func(tx *ent.Tx, v *viewer.Viewer, t folderTree) error) error {
	v, err := viewer.Require(ctx)
	if err != nil {
		return err
	}
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return store.DomainError(err, "folder")
	}
	fs, err := tx.Folder.Query().Where(folder.UserID(v.UserID), lockOnPostgres).Unique(false).All(ctx)
	if err != nil {
		return rollback(tx, store.DomainError(err, "folder"))
	}
	if err := fn(tx, v, newFolderTree(fs)); err != nil {
		return rollback(tx, err)
	}
	return store.DomainError(tx.Commit(), "folder")
}

// lockOnPostgres makes a query SELECT ... FOR UPDATE on PostgreSQL.
func lockOnPostgres(s *sql.Selector) {
	if s.Dialect() == dialect.Postgres {
		s.ForUpdate()
	}
}

// ownFolder reads one of the viewer's own folders through c; anyone
// else's is NOT_FOUND like an unknown id.
func (s *Service) ownFolder(ctx context.Context, c *ent.FolderClient, v *viewer.Viewer, id uuid.UUID) (*ent.Folder, error) {
	f, err := c.Query().Where(folder.ID(id), folder.UserID(v.UserID)).Only(ctx)
	if err != nil {
		return nil, store.DomainError(err, "folder")
	}
	return f, nil
}

// MoveConversation files the viewer's own conversation in one of their
// folders, or unfiles it (folderID nil). Another user's folder is
// NOT_FOUND; a move to where it is already is a no-op.
func (s *Service) MoveConversation(ctx context.Context, convID uuid.UUID, folderID *uuid.UUID, expected *int) (*ent.Conversation, error) {
	return s.changeConversation(ctx, convID, expected, func(ctx context.Context, tx *ent.Tx, v *viewer.Viewer, conv *ent.Conversation) (bool, error) {
		if folderID != nil {
			if _, err := s.ownFolder(ctx, tx.Folder, v, *folderID); err != nil {
				return false, err
			}
		}
		if sameID(folderID, conv.FolderID) {
			return false, nil
		}
		u := tx.Conversation.UpdateOne(conv)
		if folderID == nil {
			u.ClearFolderID()
		} else {
			u.SetFolderID(*folderID)
		}
		return true, store.DomainError(u.Exec(ctx), "conversation")
	})
}

// ConversationFolder returns conv's folder, or nil when it is unfiled or
// the viewer in ctx does not see its organisation (Visible). loaded is the
// folder field collection read already, if isLoaded.
func ConversationFolder(ctx context.Context, conv *ent.Conversation, loaded *ent.Folder, isLoaded bool) (*ent.Folder, error) {
	if !Visible(ctx, conv) || conv.FolderID == nil {
		return nil, nil
	}
	if isLoaded {
		return loaded, nil
	}
	f, err := store.Optional(conv.QueryFolder().Only(ctx))
	return f, store.DomainError(err, "folder")
}

// tooDeep is the BAD_USER_INPUT of folders nested too deep.
func tooDeep(max int) error {
	return domain.OverLimit(parentField, LimitFolderDepth, max, "folders nest at most %d deep", max)
}

// sameID reports whether two optional ids are equal.
func sameID(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
