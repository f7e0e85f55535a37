package organise

import (
	"sort"

	"github.com/google/uuid"

	"github.com/ragchat/ragchat/ent"
)

// folderTree is one user's folders, read at once (there are at most
// FoldersPerUser): it answers depth, height, descent and order without
// further queries. Every walk keeps a visited set, so even a cycle left by
// concurrent moves (internal/organise locks the user's folders on
// PostgreSQL; SQLite serialises writers) cannot loop.
type folderTree struct {
	byID     map[uuid.UUID]*ent.Folder
	children map[uuid.UUID][]*ent.Folder // uuid.Nil: the top level
}

// newFolderTree indexes folders.
func newFolderTree(folders []*ent.Folder) folderTree {
	t := folderTree{byID: make(map[uuid.UUID]*ent.Folder, len(folders)), children: map[uuid.UUID][]*ent.Folder{}}
	for _, f := range folders {
		t.byID[f.ID] = f
	}
	for _, f := range folders {
		p := uuid.Nil
		if f.ParentID != nil && t.byID[*f.ParentID] != nil {
			p = *f.ParentID
		}
		t.children[p] = append(t.children[p], f)
	}
	for _, kids := range t.children {
		sortFolders(kids)
	}
	return t
}

// sortFolders orders siblings by position, then creation, then id.
func sortFolders(fs []*ent.Folder) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.Position != b.Position:
			return a.Position < b.Position
		case !a.CreatedAt.Equal(b.CreatedAt):
			return a.CreatedAt.Before(b.CreatedAt)
		default:
			return a.ID.String() < b.ID.String()
		}
	})
}

// depth is how deep id sits: 1 at the top level.
func (t folderTree) depth(id uuid.UUID) int {
	d := 0
	seen := map[uuid.UUID]bool{}
	for f := t.byID[id]; f != nil && !seen[f.ID]; {
		seen[f.ID] = true
		d++
		if f.ParentID == nil {
			break
		}
		f = t.byID[*f.ParentID]
	}
	return d
}

// height is how many levels id and the folders below it span: 1 for a
// folder without children.
func (t folderTree) height(id uuid.UUID) int {
	return t.heightSeen(id, map[uuid.UUID]bool{})
}

func (t folderTree) heightSeen(id uuid.UUID, seen map[uuid.UUID]bool) int {
	if seen[id] {
		return 0
	}
	seen[id] = true
	h := 0
	for _, c := range t.children[id] {
		h = max(h, t.heightSeen(c.ID, seen))
	}
	return h + 1
}

// within reports whether id is root or lies below it.
func (t folderTree) within(root, id uuid.UUID) bool {
	seen := map[uuid.UUID]bool{}
	for f := t.byID[id]; f != nil && !seen[f.ID]; {
		if f.ID == root {
			return true
		}
		seen[f.ID] = true
		if f.ParentID == nil {
			return false
		}
		f = t.byID[*f.ParentID]
	}
	return false
}

// nextPosition is the position after the last child of parent (nil: the
// top level).
func (t folderTree) nextPosition(parent *uuid.UUID) int {
	p := uuid.Nil
	if parent != nil {
		p = *parent
	}
	next := 0
	for _, c := range t.children[p] {
		next = max(next, c.Position+1)
	}
	return min(next, MaxFolderPosition)
}

// ordered returns the folders depth first: each top-level folder by
// position, followed by its children by position. Folders unreachable from
// the top (a cycle) come last, so that none is lost.
func (t folderTree) ordered() []*ent.Folder {
	out := make([]*ent.Folder, 0, len(t.byID))
	seen := make(map[uuid.UUID]bool, len(t.byID))
	var walk func(parent uuid.UUID)
	walk = func(parent uuid.UUID) {
		for _, f := range t.children[parent] {
			if seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			out = append(out, f)
			walk(f.ID)
		}
	}
	walk(uuid.Nil)
	if len(out) < len(t.byID) {
		var rest []*ent.Folder
		for _, f := range t.byID {
			if !seen[f.ID] {
				rest = append(rest, f)
			}
		}
		sortFolders(rest)
		out = append(out, rest...)
	}
	return out
}
