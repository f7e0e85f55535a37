// The viewer's conversations: pinned ones first (section "Pinned"), then
// the viewer's folders with the conversations filed in them, then the
// unfiled ones, newest first, with infinite scroll over the Relay
// connection (first/after); pin, move to a folder, rename, archive, and
// delete with undo (restoreConversation), kept current by viewerEvents.
// "New conversation" starts a temporary chat when the switch is on; the
// search box (src/search) opens the conversation of a result.
import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { ViewerEventsSubscription, ArchiveConversationMutation, DeleteConversationMutation, RenameConversationMutation, RestoreConversationMutation } from '../operations';
import {
  CreateFolderMutation,
  CreateTemporaryMutation,
  DeleteFolderMutation,
  MoveToFolderMutation,
  PinConversationMutation,
  RenameFolderMutation,
  SidebarQuery,
  UnpinConversationMutation,
} from '../organise/operations';
import { useTemporaryPolicy } from '../organise/temporaryPolicy';
import { useT } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';
import { nodes } from '../relay';
import { ConversationRow, type RowActions } from './ConversationRow';
import { FolderTree, type FolderActions } from './FolderTree';
import { TemporarySwitch } from './TemporarySwitch';
import { SearchBox } from '../search/SearchBox';

const pageSize = 30;

export function ConversationList({ selected, onSelect }: { selected: string | null; onSelect: (id: string | null) => void }) {
  const t = useT();
  const { data, error, fetchMore, refetch } = useQuery(SidebarQuery, { variables: { first: pageSize }, notifyOnNetworkStatusChange: true });
  const [create] = useMutation(CreateTemporaryMutation);
  const [rename] = useMutation(RenameConversationMutation);
  const [archive] = useMutation(ArchiveConversationMutation);
  const [del] = useMutation(DeleteConversationMutation);
  const [restore] = useMutation(RestoreConversationMutation);
  const [pin] = useMutation(PinConversationMutation);
  const [unpin] = useMutation(UnpinConversationMutation);
  const [move] = useMutation(MoveToFolderMutation);
  const [createFolder] = useMutation(CreateFolderMutation);
  const [renameFolder] = useMutation(RenameFolderMutation);
  const [deleteFolder] = useMutation(DeleteFolderMutation);
  const [policy, learnPolicy] = useTemporaryPolicy();
  const [temporary, setTemporary] = useState(false);
  const [undo, setUndo] = useState<{ id: string; title: string } | null>(null);
  const [opError, setOpError] = useState<UiError | null>(null);
  const sentinel = useRef<HTMLLIElement>(null);
  const conn = data?.conversations;
  // Other tabs and devices, the engine titling a conversation after its
  // first answer, an admin deleting one: viewerEvents says the list
  // changed, and the list is read again. So does its SUBSCRIBED (the feed
  // is live, again after every reconnect): changes made before are not
  // replayed.
  // A conversation open here and deleted elsewhere is closed.
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  useSubscription(ViewerEventsSubscription, {
    onData: ({ data: ev }) => {
      const e = ev.data?.viewerEvents;
      if (e?.kind === 'CONVERSATION_DELETED' && e.conversationId === selectedRef.current) onSelect(null);
      void refetch();
    },
  });

  const more = () => {
    if (!conn?.pageInfo.hasNextPage) return;
    void fetchMore({
      variables: { after: conn.pageInfo.endCursor },
      updateQuery: (prev, { fetchMoreResult }) => ({
        ...fetchMoreResult,
        conversations: {
          ...fetchMoreResult.conversations,
          edges: [...(prev.conversations?.edges ?? []), ...(fetchMoreResult.conversations.edges ?? [])],
        },
      }),
    });
  };
  const moreRef = useRef(more);
  moreRef.current = more;

  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && moreRef.current());
    io.observe(el);
    return () => io.disconnect();
  }, [conn?.pageInfo.endCursor]);

  const run = async (f: () => Promise<unknown>) => {
    setOpError(null);
    try {
      await f();
    } catch (err) {
      setOpError(toUiError(err));
    }
  };

  const startNew = () =>
    run(async () => {
      const asked = policy === 'ENFORCED' || temporary;
      let res;
      try {
        res = await create({ variables: { temporary: asked || undefined } });
      } catch (err) {
        if (asked && toUiError(err).kind === 'forbidden') {
          learnPolicy('FORBIDDEN');
          setTemporary(false);
        }
        throw err;
      }
      const c = res.data?.createConversation;
      if (c?.temporary && !asked) learnPolicy('ENFORCED');
      if (!c?.temporary) await refetch();
      if (c) onSelect(c.id);
    });

  const rows: RowActions = {
    select: onSelect,
    pin: (id, on) =>
      void run(async () => {
        await (on ? pin({ variables: { id } }) : unpin({ variables: { id } }));
        await refetch();
      }),
    move: (id, folderId) =>
      void run(async () => {
        await move({ variables: { conversationId: id, folderId } });
        await refetch();
      }),
    rename: (id, title) => void run(() => rename({ variables: { id, title } })),
    archive: (id) => void run(() => archive({ variables: { id } })),
    remove: (id, title) =>
      void run(async () => {
        await del({ variables: { id } });
        setUndo({ id, title });
        if (id === selected) onSelect(null);
        await refetch();
      }),
  };
  const folderActions: FolderActions = {
    create: (parentId) => {
      const name = window.prompt(parentId ? t.newSubfolder : t.newFolder);
      if (name && name.trim())
        void run(async () => {
          await createFolder({ variables: { input: { name: name.trim(), parentId } } });
          await refetch();
        });
    },
    // Read the list again after a rename too: a read the feed started
    // before the rename (its SUBSCRIBED, another change) can return after
    // the rename's answer and put the old name back in the cache; the
    // newer read wins.
    rename: (id, name) =>
      void run(async () => {
        await renameFolder({ variables: { id, name } });
        await refetch();
      }),
    remove: (id) =>
      void run(async () => {
        await deleteFolder({ variables: { id } });
        await refetch();
      }),
  };

  const folders = data?.folders ?? [];
  const known = new Set(folders.map((f) => f.id));
  const pinned = nodes(data?.pinned.edges);
  const rest = nodes(conn?.edges);
  const unfiled = rest.filter((c) => !c.folderId || !known.has(c.folderId));

  return (
    <nav className="conv-list" aria-label={t.conversations} data-temporary-policy={policy ?? undefined}>
      <button type="button" className="primary" data-testid="new-conversation" onClick={() => void startNew()}>
        + {t.newConversation}
      </button>
      <TemporarySwitch policy={policy} on={temporary} onChange={setTemporary} />
      <SearchBox onOpen={onSelect} />
      {error && <ErrorNote error={toUiError(error)} onRetry={() => void refetch()} />}
      {opError && <ErrorNote error={opError} />}
      {undo && (
        <div className="toast" role="status">
          {t.deleted}{' '}
          <button
            type="button"
            onClick={() =>
              run(async () => {
                await restore({ variables: { id: undo.id } });
                setUndo(null);
                await refetch();
              })
            }
          >
            {t.undo}
          </button>
        </div>
      )}
      {pinned.length > 0 && (
        <section aria-label={t.pinned} data-testid="pinned">
          <h3>{t.pinned}</h3>
          <ul>
            {pinned.map((node) => (
              <ConversationRow key={node.id} node={node} selected={node.id === selected} folders={folders} actions={rows} />
            ))}
          </ul>
        </section>
      )}
      <FolderTree folders={folders} conversations={rest} selected={selected} rows={rows} actions={folderActions} />
      <section aria-label={t.unfiled} data-testid="unfiled">
        {(pinned.length > 0 || folders.length > 0) && <h3>{t.unfiled}</h3>}
        <ul>
          {unfiled.map((node) => (
            <ConversationRow key={node.id} node={node} selected={node.id === selected} folders={folders} actions={rows} />
          ))}
          {conn?.pageInfo.hasNextPage && (
            <li ref={sentinel}>
              <button type="button" onClick={more}>
                {t.loadMore}
              </button>
            </li>
          )}
        </ul>
      </section>
    </nav>
  );
}
