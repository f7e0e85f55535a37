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

const reasons: FeedbackReason[] = ['INACCURATE', 'INCOMPLETE', 'IRRELEVANT', 'OUTDATED', 'UNSAFE', 'CITATION_WRONG', 'HELPFUL', 'OTHER'];

export function FeedbackPage({ onInspect }: { onInspect: (attemptId: string) => void }) {
  const [where, setWhere] = useState<AdminFeedbackWhereInput>({});
  const [days, setDays] = useState(7);
  const period = lastDays(days);
  const list = useQuery(FeedbacksQuery, { variables: { where, first: 50 }, fetchPolicy: 'network-only' });
  const summary = useQuery(FeedbackSummaryQuery, { variables: period, fetchPolicy: 'network-only' });
  const set = (patch: Partial<AdminFeedbackWhereInput>) => setWhere((w) => ({ ...w, ...patch }));
  const s = summary.data?.feedbackSummary;
  return (
    <section>
      <h3>Summary</h3>
      <label>
        period{' '}
        <select value={days} onChange={(e) => setDays(Number(e.target.value))} aria-label="period">
          <option value={1}>today</option>
          <option value={7}>7 days</option>
          <option value={30}>30 days</option>
          <option value={90}>90 days</option>
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
          <ul className="sr-only" aria-label="feedback by reason">
            {s.byReason.map((r) => (
              <li key={r.reason} data-testid="reason-count" data-reason={r.reason} data-count={r.count}>
                {r.reason}: {r.count}
              </li>
            ))}
          </ul>
        </div>
      )}
      <h3>Feedback</h3>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <select aria-label="rating" onChange={(e) => set({ rating: (e.target.value || null) as FeedbackRating | null })}>
          <option value="">any rating</option>
          <option value="UP">UP</option>
          <option value="DOWN">DOWN</option>
        </select>
        <select aria-label="reason" onChange={(e) => set({ reasonCode: (e.target.value || null) as FeedbackReason | null })}>
          <option value="">any reason</option>
          {reasons.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <input placeholder="user" aria-label="user" onChange={(e) => set({ userId: e.target.value || null })} />
        <input placeholder="model" aria-label="model" onChange={(e) => set({ model: e.target.value || null })} />
        <label>
          from <input type="date" onChange={(e) => set({ createdAfter: dayStart(e.target.value) })} />
        </label>
        <label>
          to <input type="date" onChange={(e) => set({ createdBefore: dayStart(e.target.value) })} />
        </label>
      </form>
      {list.error && <ErrorNote error={toUiError(list.error)} />}
      <table className="grid" data-testid="feedback-list">
        <thead>
          <tr>
            <th>rating</th>
            <th>reasons</th>
            <th>comment</th>
            <th>user</th>
            <th>when</th>
            <th>attempt</th>
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
                  inspect
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
