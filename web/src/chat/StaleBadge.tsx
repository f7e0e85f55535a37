// The "sources changed since this answer" badge of a completed answer
// (docs/API.md, "Stale answers"). Staleness is computed on read, so it is
// read when the answer is shown (and again on every mount, e.g. a reload
// or reopening the conversation): when stale, the badge lists the sources
// that changed and offers Re-ask (reaskAttempt), which asks the answer's
// standalone question again on the current branch.
import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { AttemptStalenessQuery } from '../operations';
import { useT } from '../i18n';

export interface StaleBadgeProps {
  attemptId: string;
  readOnly: boolean;
  locked: boolean;
  onReask?: (attemptId: string) => Promise<void>;
}

export function StaleBadge({ attemptId, readOnly, locked, onReask }: StaleBadgeProps) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const { data } = useQuery(AttemptStalenessQuery, { variables: { id: attemptId }, fetchPolicy: 'cache-and-network' });
  const st = data?.attempt.staleness;
  if (!st?.stale) return null;
  return (
    <div className="stale-badge" role="status" data-testid="stale-badge">
      <strong>{t.sourcesChanged}</strong>
      <ul>
        {st.sources.map((s) => (
          <li key={s.source.id} data-testid="stale-source" data-change={s.change}>
            [{s.source.label}] {s.source.available ? s.source.documentTitle : null}{' '}
            <span className="muted">
              {s.change === 'CHANGED' && s.citedVersion != null && s.currentVersion != null
                ? t.sourceChangedFrom(s.citedVersion, s.currentVersion)
                : s.change === 'DELETED'
                  ? t.sourceDeleted
                  : t.staleSourceUnavailable}
              {s.stillContainsCitedText ? ` · ${t.sourceStillContains}` : ''}
            </span>
          </li>
        ))}
      </ul>
      {!readOnly && onReask && (
        <button
          type="button"
          disabled={locked || busy}
          data-testid="reask"
          onClick={() => {
            setBusy(true);
            void onReask(attemptId).finally(() => setBusy(false));
          }}
        >
          {t.reask}
        </button>
      )}
    </div>
  );
}
