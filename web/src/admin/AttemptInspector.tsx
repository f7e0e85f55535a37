// The attempt inspector: the context manifest as a picture (tokens per
// prompt section against the budget, history rounds used, dropped and
// revoked, chunks with their scores), timings (TTFT, duration), model and
// usage, and the sources with their availability.
import { useQuery } from '@apollo/client/react';
import { AttemptInspectorQuery } from './operations';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { budgetPicture } from './budget';
import { useAdminT } from './i18n';

export function AttemptInspector({ id, onClose }: { id: string; onClose: () => void }) {
  const t = useAdminT();
  const { data, error } = useQuery(AttemptInspectorQuery, { variables: { id }, fetchPolicy: 'network-only' });
  const a = data?.attempt;
  const d = data?.attemptDiagnostics;
  const m = d?.contextManifest;
  return (
    <section className="panel inspector" aria-label={t.inspector} data-testid="attempt-inspector">
      <button type="button" onClick={onClose} className="close" aria-label={t.close}>
        ×
      </button>
      {error && <ErrorNote error={toUiError(error)} />}
      {a && (
        <>
          <h3 data-testid="inspector-status" data-status={a.status}>{t.attemptStatus(a.status)}</h3>
          <p>
            <strong>{t.question}</strong> {a.originalQuestion}
            {a.standaloneQuestion && a.standaloneQuestion !== a.originalQuestion && <span className="muted"> {t.searchedAs(a.standaloneQuestion)}</span>}
          </p>
          <p>
            {t.tokensLine(a.model ?? '—', a.promptTokens, a.completionTokens, a.totalTokens)}
            {d && (
              <>
                {' '}
                · {t.timings(String(d.timings.timeToFirstTokenMs ?? '—'), String(d.timings.durationMs ?? '—'))}
              </>
            )}
            {a.failureCode && <> · {t.failedWith(a.failureCode)}</>}
          </p>
        </>
      )}
      {m && (
        <>
          <h4>
            {t.contextLine(m.strategy, m.budget, m.window, m.answerReserve)}
          </h4>
          <div className="budget" role="img" aria-label={t.budgetAria}>
            {budgetPicture(m.tokens, m.limits, m.budget).map((b) => (
              <div key={b.section} className="budget-row">
                <span className="budget-label">{b.section}</span>
                <span className="budget-track">
                  <span className={b.over ? 'budget-used over' : 'budget-used'} style={{ width: `${b.usedPct}%` }} />
                  <span className="budget-limit" style={{ left: `${b.limitPct}%` }} />
                </span>
                <span className="budget-num">
                  {b.used} / {b.limit}
                </span>
              </div>
            ))}
          </div>
          <p>
            {t.roundsLine(m.historyRounds, m.droppedRounds, m.revokedRounds, m.summaryIncluded, m.chunkIds.length, m.droppedChunks)}
          </p>
        </>
      )}
      {a?.sources && (
        <table className="grid">
          <thead>
            <tr>
              <th>{t.label}</th>
              <th>{t.score}</th>
              <th>{t.cited}</th>
              <th>{t.document}</th>
            </tr>
          </thead>
          <tbody>
            {a.sources.map((s) => (
              <tr key={s.label} data-testid="inspector-source">
                <td>{s.label}</td>
                <td>{s.score.toFixed(3)}</td>
                <td>{s.cited ? t.yes : ''}</td>
                <td>{s.available ? s.documentTitle : <em>{t.noLongerAvailable}</em>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
