// The sources panel of one answer: each cited chunk with its document title
// and snippet, or "no longer available" once the viewer may not read it
// (sources are re-authorised on every read).
import type { SourceFieldsFragment } from '../gql/graphql';
import { useT } from '../i18n';

/** The id of a source's entry, the target of its [C1] links. */
export function sourceAnchor(attemptId: string, label: string): string {
  return `src-${attemptId}-${label}`;
}

export function SourcesPanel({ attemptId, sources }: { attemptId: string; sources: readonly SourceFieldsFragment[] }) {
  const t = useT();
  if (sources.length === 0) return <p className="muted">{t.noSources}</p>;
  return (
    <section className="sources" aria-label={t.sources}>
      <h4>{t.sources}</h4>
      <ol>
        {sources.map((s) => (
          <li key={s.id ?? s.label} id={sourceAnchor(attemptId, s.label)} tabIndex={-1} className={s.available ? 'source' : 'source unavailable'} data-testid="source">
            <strong>[{s.label}]</strong>{' '}
            {s.available ? (
              <>
                <span className="doc-title">{s.documentTitle}</span>
                <blockquote>{s.snippet}</blockquote>
              </>
            ) : (
              <em className="doc-title">{t.noLongerAvailable}</em>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
