// The audit events page: the auditEvents Relay connection (admins only)
// with its where filters (actor, action, target, period) and orderBy
// (newest or oldest first), read page by page as the reader scrolls
// (infinite scroll: an IntersectionObserver on the last row).
// docs/API.md, "Audit events".
import { useQuery } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import type { AuditEventWhereInput, OrderDirection } from '../gql/graphql';
import { AuditEventsQuery } from './operations';
import { nodes } from '../relay';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { dayStart } from './period';
import { useAdminT } from './i18n';

const pageSize = 25;

export function AuditPage() {
  const t = useAdminT();
  const [where, setWhere] = useState<AuditEventWhereInput>({});
  const [direction, setDirection] = useState<OrderDirection>('DESC');
  const { data, error, fetchMore, refetch, loading } = useQuery(AuditEventsQuery, {
    variables: { first: pageSize, where, orderBy: { field: 'AT', direction } },
    fetchPolicy: 'network-only',
    notifyOnNetworkStatusChange: true,
  });
  const conn = data?.auditEvents;
  const sentinel = useRef<HTMLTableRowElement>(null);
  const set = (patch: Partial<AuditEventWhereInput>) => setWhere((w) => ({ ...w, ...patch }));

  const more = () => {
    if (!conn?.pageInfo.hasNextPage || loading) return;
    void fetchMore({
      variables: { after: conn.pageInfo.endCursor },
      updateQuery: (prev, { fetchMoreResult }) => ({
        auditEvents: {
          ...fetchMoreResult.auditEvents,
          edges: [...(prev.auditEvents?.edges ?? []), ...(fetchMoreResult.auditEvents.edges ?? [])],
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

  return (
    <section aria-label={t.auditTitle}>
      <h3>{t.auditTitle}</h3>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <input placeholder={t.actor} aria-label={t.actor} onChange={(e) => set({ actor: e.target.value || null })} data-testid="audit-actor" />
        <input placeholder={t.action} aria-label={t.action} onChange={(e) => set({ actionContains: e.target.value || null })} data-testid="audit-action" />
        <input placeholder={t.targetType} aria-label={t.targetType} onChange={(e) => set({ targetType: e.target.value || null })} />
        <input placeholder={t.targetId} aria-label={t.targetId} onChange={(e) => set({ targetId: e.target.value || null })} />
        <label>
          {t.from} <input type="date" onChange={(e) => set({ atGTE: dayStart(e.target.value) })} />
        </label>
        <label>
          {t.to} <input type="date" onChange={(e) => set({ atLT: dayStart(e.target.value) })} />
        </label>
        <label>
          {t.order}{' '}
          <select value={direction} onChange={(e) => setDirection(e.target.value as OrderDirection)} aria-label={t.order}>
            <option value="DESC">{t.newestFirst}</option>
            <option value="ASC">{t.oldestFirst}</option>
          </select>
        </label>
      </form>
      {error && <ErrorNote error={toUiError(error)} onRetry={() => void refetch()} />}
      <p className="muted" data-testid="audit-count">
        {t.eventsCount(conn?.totalCount ?? 0)}
      </p>
      <table className="grid" data-testid="audit-list">
        <thead>
          <tr>
            <th>{t.at}</th>
            <th>{t.actor}</th>
            <th>{t.action}</th>
            <th>{t.target}</th>
            <th>{t.reason}</th>
            <th>{t.metadata}</th>
          </tr>
        </thead>
        <tbody>
          {nodes(conn?.edges).map((ev) => (
            <tr key={ev.id} data-testid="audit-row" data-action={ev.action}>
              <td>{new Date(ev.at).toLocaleString()}</td>
              <td>{ev.actor}</td>
              <td>
                <code>{ev.action}</code>
              </td>
              <td>
                {ev.targetType} {ev.targetId}
              </td>
              <td>{ev.reason}</td>
              <td>
                {ev.metadata.length > 0 && (
                  <dl className="metadata">
                    {ev.metadata.map((m) => (
                      <div key={m.key}>
                        <dt>{m.key}</dt>
                        <dd>{m.value}</dd>
                      </div>
                    ))}
                  </dl>
                )}
              </td>
            </tr>
          ))}
          {conn?.pageInfo.hasNextPage ? (
            <tr ref={sentinel}>
              <td colSpan={6}>
                <button type="button" onClick={more} disabled={loading}>
                  {t.loadMore}
                </button>
              </td>
            </tr>
          ) : (
            conn && (
              <tr>
                <td colSpan={6} className="muted">
                  {t.endOfList}
                </td>
              </tr>
            )
          )}
        </tbody>
      </table>
    </section>
  );
}
