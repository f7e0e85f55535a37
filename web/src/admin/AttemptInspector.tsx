// The attempt inspector: the context manifest as a picture (tokens per
// prompt section against the budget, history rounds used, dropped and
// revoked, chunks with their scores), timings (TTFT, duration), model and
// usage, and the sources with their availability.
import { useQuery } from '@apollo/client/react';
import { AttemptInspectorQuery } from './operations';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { budgetPicture } from './budget';

export function AttemptInspector({ id, onClose }: { id: string; onClose: () => void }) {
  const { data, error } = useQuery(AttemptInspectorQuery, { variables: { id }, fetchPolicy: 'network-only' });
  const a = data?.attempt;
  const d = data?.attemptDiagnostics;
  const m = d?.contextManifest;
  return (
    <section className="panel inspector" aria-label="Attempt inspector" data-testid="attempt-inspector">
      <button type="button" onClick={onClose} className="close" aria-label="close">
        ×
      </button>
      {error && <ErrorNote error={toUiError(error)} />}
      {a && (
        <>
          <h3>Attempt {a.status}</h3>
          <p>
            <strong>Q:</strong> {a.originalQuestion}
            {a.standaloneQuestion && a.standaloneQuestion !== a.originalQuestion && <span className="muted"> (searched as: {a.standaloneQuestion})</span>}
          </p>
          <p>
            model {a.model ?? '—'} · tokens {a.promptTokens} prompt + {a.completionTokens} completion = {a.totalTokens}
            {d && (
              <>
                {' '}
                · TTFT {d.timings.timeToFirstTokenMs ?? '—'} ms · duration {d.timings.durationMs ?? '—'} ms
              </>
            )}
            {a.failureCode && <> · failed {a.failureCode}</>}
          </p>
        </>
      )}
      {m && (
        <>
          <h4>
            Context: {m.strategy}, budget {m.budget} of window {m.window} (answer reserve {m.answerReserve})
          </h4>
          <div className="budget" role="img" aria-label="tokens per prompt section against the budget">
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
            history rounds used {m.historyRounds}, dropped {m.droppedRounds}, revoked {m.revokedRounds}; summary {m.summaryIncluded ? 'included' : 'not included'}; chunks {m.chunkIds.length} (dropped {m.droppedChunks})
          </p>
        </>
      )}
      {a?.sources && (
        <table className="grid">
          <thead>
            <tr>
              <th>label</th>
              <th>score</th>
              <th>cited</th>
              <th>document</th>
            </tr>
          </thead>
          <tbody>
            {a.sources.map((s) => (
              <tr key={s.label} data-testid="inspector-source">
                <td>{s.label}</td>
                <td>{s.score.toFixed(3)}</td>
                <td>{s.cited ? 'yes' : ''}</td>
                <td>{s.available ? s.documentTitle : <em>no longer available</em>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
