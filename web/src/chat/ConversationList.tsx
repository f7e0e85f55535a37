// The viewer's conversations, newest first, with infinite scroll over the
// Relay connection (first/after), rename, archive, and delete with undo
// (restoreConversation), kept current by viewerEvents.
import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { ViewerEventsSubscription, ArchiveConversationMutation, ConversationsQuery, CreateConversationMutation, DeleteConversationMutation, RenameConversationMutation, RestoreConversationMutation } from '../operations';
import { useT } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';
import { nodes } from '../relay';

const pageSize = 30;

export function ConversationList({ selected, onSelect }: { selected: string | null; onSelect: (id: string | null) => void }) {
  const t = useT();
  const { data, error, fetchMore, refetch } = useQuery(ConversationsQuery, { variables: { first: pageSize }, notifyOnNetworkStatusChange: true });
  const [create] = useMutation(CreateConversationMutation);
  const [rename] = useMutation(RenameConversationMutation);
  const [archive] = useMutation(ArchiveConversationMutation);
  const [del] = useMutation(DeleteConversationMutation);
  const [restore] = useMutation(RestoreConversationMutation);
  const [undo, setUndo] = useState<{ id: string; title: string } | null>(null);
  const [opError, setOpError] = useState<UiError | null>(null);
  const sentinel = useRef<HTMLLIElement>(null);
  const conn = data?.conversations;
  // Other tabs and devices, the engine titling a conversation after its
  // first answer, an admin deleting one: viewerEvents says the list
  // changed, and the list is read again.
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

  return (
    <nav className="conv-list" aria-label={t.conversations}>
      <button
        type="button"
        className="primary"
        data-testid="new-conversation"
        onClick={() =>
          run(async () => {
            const res = await create();
            await refetch();
            if (res.data) onSelect(res.data.createConversation.id);
          })
        }
      >
        + {t.newConversation}
      </button>
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
      <ul>
        {nodes(conn?.edges).map((node) => (
          <li key={node.id} className={node.id === selected ? 'selected' : ''}>
            <a
              href={`/c/${node.id}`}
              aria-current={node.id === selected ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                onSelect(node.id);
              }}
            >
              {node.title || '…'}
              {node.status !== 'ACTIVE' && <small className="badge">{node.status === 'ARCHIVED' ? t.archived : t.expired}</small>}
            </a>
            <span className="row-actions">
              <button
                type="button"
                title={t.rename}
                aria-label={`${t.rename}: ${node.title}`}
                onClick={() => {
                  const title = window.prompt(t.rename, node.title);
                  if (title && title.trim()) void run(() => rename({ variables: { id: node.id, title: title.trim() } }));
                }}
              >
                ✎
              </button>
              {node.status === 'ACTIVE' && (
                <button type="button" title={t.archive} aria-label={`${t.archive}: ${node.title}`} onClick={() => run(() => archive({ variables: { id: node.id } }))}>
                  ⤓
                </button>
              )}
              <button
                type="button"
                title={t.delete}
                aria-label={`${t.delete}: ${node.title}`}
                onClick={() =>
                  run(async () => {
                    await del({ variables: { id: node.id } });
                    setUndo({ id: node.id, title: node.title });
                    if (node.id === selected) onSelect(null);
                    await refetch();
                  })
                }
              >
                🗑
              </button>
            </span>
          </li>
        ))}
        {conn?.pageInfo.hasNextPage && (
          <li ref={sentinel}>
            <button type="button" onClick={more}>
              {t.loadMore}
            </button>
          </li>
        )}
      </ul>
    </nav>
  );
}
