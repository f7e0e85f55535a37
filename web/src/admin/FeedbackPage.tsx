// The feedback browser (feedbacks with its filters, each linked to its
// attempt) and the feedbackSummary chart by reason over a chosen period.
import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import type { AdminFeedbackWhereInput, FeedbackRating, FeedbackReason } from '../gql/graphql';
import { FeedbackSummaryQuery, FeedbacksQuery } from './operations';
import { nodes } from '../relay';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { dayStart, lastDays } from './period';
import { useAdminT } from './i18n';

const reasons: FeedbackReason[] = ['INACCURATE', 'INCOMPLETE', 'IRRELEVANT', 'OUTDATED', 'UNSAFE', 'CITATION_WRONG', 'HELPFUL', 'OTHER'];

export function FeedbackPage({ onInspect }: { onInspect: (attemptId: string) => void }) {
  const t = useAdminT();
  const [where, setWhere] = useState<AdminFeedbackWhereInput>({});
  const [days, setDays] = useState(7);
  const period = lastDays(days);
  const list = useQuery(FeedbacksQuery, { variables: { where, first: 50 }, fetchPolicy: 'network-only' });
  const summary = useQuery(FeedbackSummaryQuery, { variables: period, fetchPolicy: 'network-only' });
  const set = (patch: Partial<AdminFeedbackWhereInput>) => setWhere((w) => ({ ...w, ...patch }));
  const s = summary.data?.feedbackSummary;
  return (
    <section>
      <h3>{t.summary}</h3>
      <label>
        {t.period}{' '}
        <select value={days} onChange={(e) => setDays(Number(e.target.value))} aria-label={t.period}>
          <option value={1}>{t.today}</option>
          <option value={7}>{t.days(7)}</option>
          <option value={30}>{t.days(30)}</option>
          <option value={90}>{t.days(90)}</option>
        </select>
      </label>
      {summary.error && <ErrorNote error={toUiError(summary.error)} />}
      {s && (
        <div data-testid="feedback-summary" data-up={s.up} data-down={s.down}>
          <p>
            👍 {s.up} · 👎 {s.down}
          </p>
          <BarChart width={640} height={220} data={s.byReason.map((r) => ({ reason: r.reason, count: r.count }))} accessibilityLayer>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="reason" fontSize={11} />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Bar dataKey="count" fill="#2457d6" isAnimationActive={false} />
          </BarChart>
          <ul className="sr-only" aria-label={t.feedbackByReason}>
            {s.byReason.map((r) => (
              <li key={r.reason} data-testid="reason-count" data-reason={r.reason} data-count={r.count}>
                {r.reason}: {r.count}
              </li>
            ))}
          </ul>
        </div>
      )}
      <h3>{t.feedback}</h3>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <select aria-label={t.rating} onChange={(e) => set({ rating: (e.target.value || null) as FeedbackRating | null })}>
          <option value="">{t.anyRating}</option>
          <option value="UP">UP</option>
          <option value="DOWN">DOWN</option>
        </select>
        <select aria-label={t.reason} onChange={(e) => set({ reasonCode: (e.target.value || null) as FeedbackReason | null })}>
          <option value="">{t.anyReason}</option>
          {reasons.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <input placeholder={t.user} aria-label={t.user} onChange={(e) => set({ userId: e.target.value || null })} />
        <input placeholder={t.model} aria-label={t.model} onChange={(e) => set({ model: e.target.value || null })} />
        <label>
          {t.from} <input type="date" onChange={(e) => set({ createdAfter: dayStart(e.target.value) })} />
        </label>
        <label>
          {t.to} <input type="date" onChange={(e) => set({ createdBefore: dayStart(e.target.value) })} />
        </label>
      </form>
      {list.error && <ErrorNote error={toUiError(list.error)} />}
      <table className="grid" data-testid="feedback-list">
        <thead>
          <tr>
            <th>{t.rating}</th>
            <th>{t.reasons}</th>
            <th>{t.comment}</th>
            <th>{t.user}</th>
            <th>{t.when}</th>
            <th>{t.attempt}</th>
          </tr>
        </thead>
        <tbody>
          {nodes(list.data?.feedbacks.edges).map((f) => (
            <tr key={f.id} data-testid="feedback-row">
              <td>{f.rating === 'UP' ? '👍' : '👎'}</td>
              <td>{(f.reasonCodes ?? []).join(', ')}</td>
              <td>{f.comment}</td>
              <td>{f.userId}</td>
              <td>{new Date(f.createdAt).toLocaleString()}</td>
              <td>
                <button type="button" className="link" onClick={() => onInspect(f.attemptId)} data-testid="inspect-attempt">
                  {t.inspect}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
