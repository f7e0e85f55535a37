// The admin conversations browser: adminConversations with its filters.
// Opening another user's conversation is audited by the server, and the
// console says so before and while showing it.
import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import type { AdminConversationWhereInput, ConversationStatus } from '../gql/graphql';
import { AdminConversationQuery, AdminConversationsQuery } from './operations';
import { nodes } from '../relay';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { dayStart } from './period';
import { useAdminT } from './i18n';

export function AdminConversations({ onInspect }: { onInspect: (attemptId: string) => void }) {
  const t = useAdminT();
  const [where, setWhere] = useState<AdminConversationWhereInput>({});
  const [open, setOpen] = useState<string | null>(null);
  const { data, error } = useQuery(AdminConversationsQuery, { variables: { where, first: 50 }, fetchPolicy: 'network-only' });
  const set = (patch: Partial<AdminConversationWhereInput>) => setWhere((w) => ({ ...w, ...patch }));
  return (
    <section>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <input placeholder={t.user} aria-label={t.user} onChange={(e) => set({ userId: e.target.value || null })} />
        <input placeholder={t.titleContains} aria-label={t.titleContains} onChange={(e) => set({ titleContains: e.target.value || null })} />
        <select aria-label={t.status} onChange={(e) => set({ status: (e.target.value || null) as ConversationStatus | null })}>
          <option value="">{t.anyStatus}</option>
          {['ACTIVE', 'ARCHIVED', 'EXPIRED', 'DELETED'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <label>
          {t.from} <input type="date" onChange={(e) => set({ createdAfter: dayStart(e.target.value) })} />
        </label>
        <label>
          {t.to} <input type="date" onChange={(e) => set({ createdBefore: dayStart(e.target.value) })} />
        </label>
        <label>
          <input type="checkbox" onChange={(e) => set({ hasNegativeFeedback: e.target.checked || null })} /> {t.negativeFeedback}
        </label>
      </form>
      {error && <ErrorNote error={toUiError(error)} />}
      <p className="muted">{t.conversationsAudited(data?.adminConversations.totalCount ?? 0)}</p>
      <table className="grid">
        <thead>
          <tr>
            <th>{t.title}</th>
            <th>{t.user}</th>
            <th>{t.status}</th>
            <th>{t.updated}</th>
          </tr>
        </thead>
        <tbody>
          {nodes(data?.adminConversations.edges).map((c) => (
            <tr key={c.id}>
              <td>
                <button type="button" className="link" onClick={() => setOpen(c.id)}>
                  {c.title || '…'}
                </button>
              </td>
              <td>{c.userId}</td>
              <td>{c.status}</td>
              <td>{new Date(c.updatedAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && <AdminConversationView id={open} onInspect={onInspect} />}
    </section>
  );
}

function AdminConversationView({ id, onInspect }: { id: string; onInspect: (attemptId: string) => void }) {
  const t = useAdminT();
  const { data, error } = useQuery(AdminConversationQuery, { variables: { id }, fetchPolicy: 'network-only' });
  if (error) return <ErrorNote error={toUiError(error)} />;
  const c = data?.conversation;
  if (!c) return null;
  return (
    <section className="panel" aria-label={c.title}>
      <p className="audit-note" role="note">
        {t.auditedRead(c.userId)}
      </p>
      <h3>{c.title}</h3>
      {nodes(c.messages.edges).map((m) => (
        <div key={m.id} className="turn">
          <div className="question">{m.content}</div>
          {(m.attempts ?? []).map((a) => (
            <div key={a.id} className="answer">
              <button type="button" className="link" onClick={() => onInspect(a.id)}>
                {t.inspectAttempt(a.status)}
              </button>{' '}
              {a.answer.slice(0, 200)}
            </div>
          ))}
        </div>
      ))}
    </section>
  );
}
