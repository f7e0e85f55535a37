// One conversation in the sidebar: its link and its actions (pin or unpin,
// move to a folder, rename, archive, delete).
import { useT } from '../i18n';

/** The fields a row shows. */
export interface RowConversation {
  id: string;
  title: string;
  status: string;
  pinned: boolean;
  folderId?: string | null;
}

/** The sidebar's folders, for the move menu. */
export interface RowFolder {
  id: string;
  name: string;
  parentId?: string | null;
}

export interface RowActions {
  select: (id: string) => void;
  pin: (id: string, pinned: boolean) => void;
  move: (id: string, folderId: string | null) => void;
  rename: (id: string, title: string) => void;
  archive: (id: string) => void;
  remove: (id: string, title: string) => void;
}

export function ConversationRow({ node, selected, folders, actions }: { node: RowConversation; selected: boolean; folders: RowFolder[]; actions: RowActions }) {
  const t = useT();
  return (
    <li className={selected ? 'selected' : ''} data-testid="conversation-row" data-id={node.id}>
      <a
        href={`/c/${node.id}`}
        aria-current={selected ? 'page' : undefined}
        onClick={(e) => {
          e.preventDefault();
          actions.select(node.id);
        }}
      >
        {node.title || '…'}
        {node.status !== 'ACTIVE' && <small className="badge">{node.status === 'ARCHIVED' ? t.archived : t.expired}</small>}
      </a>
      <span className="row-actions">
        <button
          type="button"
          data-testid={node.pinned ? 'unpin' : 'pin'}
          title={node.pinned ? t.unpin : t.pin}
          aria-label={`${node.pinned ? t.unpin : t.pin}: ${node.title}`}
          aria-pressed={node.pinned}
          onClick={() => actions.pin(node.id, !node.pinned)}
        >
          {node.pinned ? '★' : '☆'}
        </button>
        <select
          data-testid="move-to-folder"
          aria-label={`${t.moveToFolder}: ${node.title}`}
          title={t.moveToFolder}
          value={node.folderId ?? ''}
          onChange={(e) => actions.move(node.id, e.target.value || null)}
        >
          <option value="">{t.noFolder}</option>
          {folders.map((f) => (
            <option key={f.id} value={f.id}>
              {f.parentId ? `— ${f.name}` : f.name}
            </option>
          ))}
        </select>
        <button
          type="button"
          title={t.rename}
          aria-label={`${t.rename}: ${node.title}`}
          onClick={() => {
            const title = window.prompt(t.rename, node.title);
            if (title && title.trim()) actions.rename(node.id, title.trim());
          }}
        >
          ✎
        </button>
        {node.status === 'ACTIVE' && (
          <button type="button" title={t.archive} aria-label={`${t.archive}: ${node.title}`} onClick={() => actions.archive(node.id)}>
            ⤓
          </button>
        )}
        <button type="button" title={t.delete} aria-label={`${t.delete}: ${node.title}`} onClick={() => actions.remove(node.id, node.title)}>
          🗑
        </button>
      </span>
    </li>
  );
}
