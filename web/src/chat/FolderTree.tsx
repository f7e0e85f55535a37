// The sidebar's folders: each with its conversations, rename, delete and
// (for a top-level folder) a new subfolder; the console nests folders one
// level deep, and shows any deeper ones the API made under their parent.
import { useT } from '../i18n';
import { ConversationRow, type RowActions, type RowConversation, type RowFolder } from './ConversationRow';

export interface FolderActions {
  create: (parentId: string | null) => void;
  rename: (id: string, name: string) => void;
  remove: (id: string) => void;
}

interface Props {
  folders: RowFolder[];
  conversations: RowConversation[];
  selected: string | null;
  rows: RowActions;
  actions: FolderActions;
}

export function FolderTree(props: Props) {
  const t = useT();
  return (
    <section className="folders" aria-label={t.folders} data-testid="folders">
      <h3>
        {t.folders}{' '}
        <button type="button" data-testid="new-folder" title={t.newFolder} aria-label={t.newFolder} onClick={() => props.actions.create(null)}>
          +
        </button>
      </h3>
      <FolderLevel {...props} parentId={null} depth={1} />
    </section>
  );
}

function FolderLevel(props: Props & { parentId: string | null; depth: number }) {
  const t = useT();
  const { folders, conversations, selected, rows, actions, parentId, depth } = props;
  const here = folders.filter((f) => (f.parentId ?? null) === parentId);
  if (here.length === 0) return null;
  return (
    <ul className={depth > 1 ? 'subfolders' : undefined}>
      {here.map((f) => (
        <li key={f.id} className="folder" data-testid="folder" data-id={f.id}>
          <details open>
            <summary>
              <span className="folder-name" data-testid="folder-name">
                📁 {f.name}
              </span>
              <span className="row-actions">
                {depth === 1 && (
                  <button type="button" data-testid="new-subfolder" title={t.newSubfolder} aria-label={`${t.newSubfolder}: ${f.name}`} onClick={() => actions.create(f.id)}>
                    +
                  </button>
                )}
                <button
                  type="button"
                  data-testid="rename-folder"
                  title={t.renameFolder}
                  aria-label={`${t.renameFolder}: ${f.name}`}
                  onClick={() => {
                    const name = window.prompt(t.folderName, f.name);
                    if (name && name.trim()) actions.rename(f.id, name.trim());
                  }}
                >
                  ✎
                </button>
                <button type="button" data-testid="delete-folder" title={t.deleteFolder} aria-label={`${t.deleteFolder}: ${f.name}`} onClick={() => actions.remove(f.id)}>
                  🗑
                </button>
              </span>
            </summary>
            <FolderLevel {...props} parentId={f.id} depth={depth + 1} />
            <ul>
              {conversations
                .filter((c) => c.folderId === f.id)
                .map((c) => (
                  <ConversationRow key={c.id} node={c} selected={c.id === selected} folders={folders} actions={rows} />
                ))}
            </ul>
          </details>
        </li>
      ))}
    </ul>
  );
}
