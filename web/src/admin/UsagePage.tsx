// The usageSummary chart: tokens by model and UTC day.
import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { UsageSummaryQuery } from './operations';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { lastDays } from './period';
import { useAdminT } from './i18n';

const palette = ['#2457d6', '#d97706', '#059669', '#be123c', '#7c3aed'];

export function UsagePage() {
  const t = useAdminT();
  const [days, setDays] = useState(30);
  const { data, error } = useQuery(UsageSummaryQuery, { variables: lastDays(days), fetchPolicy: 'network-only' });
  const rows = data?.usageSummary ?? [];
  const models = [...new Set(rows.map((r) => r.model))].sort();
  const byDay = new Map<string, Record<string, number | string>>();
  for (const r of rows) {
    const d = byDay.get(r.day) ?? { day: r.day };
    d[r.model] = ((d[r.model] as number) ?? 0) + r.totalTokens;
    byDay.set(r.day, d);
  }
  const chart = [...byDay.values()].sort((a, b) => String(a.day).localeCompare(String(b.day)));
  // Cost per day (usage ledger, micro-units of the configured prices).
  const costs = new Map<string, { tokens: number; micros: number }>();
  for (const r of rows) {
    const c = costs.get(r.day) ?? { tokens: 0, micros: 0 };
    c.tokens += r.totalTokens;
    c.micros += r.costMicros;
    costs.set(r.day, c);
  }
  const costDays = [...costs.entries()].sort(([a], [b]) => a.localeCompare(b));
  return (
    <section>
      <h3>{t.tokensByModelDay}</h3>
      <select value={days} onChange={(e) => setDays(Number(e.target.value))} aria-label={t.period}>
        <option value={7}>{t.days(7)}</option>
        <option value={30}>{t.days(30)}</option>
        <option value={90}>{t.days(90)}</option>
      </select>
      {error && <ErrorNote error={toUiError(error)} />}
      <BarChart width={720} height={260} data={chart} accessibilityLayer>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="day" fontSize={11} />
        <YAxis />
        <Tooltip />
        <Legend />
        {models.map((m, i) => (
          <Bar key={m} dataKey={m} stackId="t" fill={palette[i % palette.length]} isAnimationActive={false} />
        ))}
      </BarChart>
      <table className="grid">
        <thead>
          <tr>
            <th>{t.day}</th>
            <th>{t.model}</th>
            <th>{t.attempts}</th>
            <th>{t.prompt}</th>
            <th>{t.completion}</th>
            <th>{t.total}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.day}-${r.model}`}>
              <td>{r.day}</td>
              <td>{r.model}</td>
              <td>{r.attempts}</td>
              <td>{r.promptTokens}</td>
              <td>{r.completionTokens}</td>
              <td>{r.totalTokens}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{t.costByDay}</h3>
      <table className="grid">
        <thead>
          <tr>
            <th>{t.day}</th>
            <th>{t.tokens}</th>
            <th>{t.cost}</th>
          </tr>
        </thead>
        <tbody>
          {costDays.map(([day, c]) => (
            <tr key={day} data-testid="cost-day" data-tokens={c.tokens} data-cost-micros={c.micros}>
              <td>{day}</td>
              <td>{c.tokens}</td>
              <td>{(c.micros / 1e6).toFixed(6)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
