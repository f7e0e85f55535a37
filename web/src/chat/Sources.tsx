// The sources panel of one answer: the cited chunks first (in citation
// order), each with its document title and snippet, or "no longer
// available" once the viewer may not read it (sources are re-authorised
// on every read); the chunks retrieved but not cited fold under a "more
// sources" toggle.
import type { SourceFieldsFragment } from '../gql/graphql';
import { useT } from '../i18n';
import { splitSources } from './sources';

/** The id of a source's entry, the target of its [C1] links. */
export function sourceAnchor(attemptId: string, label: string): string {
  return `src-${attemptId}-${label}`;
}

export interface SourcesPanelProps {
  attemptId: string;
  sources: readonly SourceFieldsFragment[];
  /** The answer's text, whose [Cn] labels say what is cited. */
  answer: string;
  /** False while the answer streams: citations are not known yet. */
  final: boolean;
}

export function SourcesPanel({ attemptId, sources, answer, final }: SourcesPanelProps) {
  const t = useT();
  if (sources.length === 0) return <p className="muted">{t.noSources}</p>;
  const { cited, more } = splitSources(sources, answer, final);
  const item = (s: SourceFieldsFragment, isCited: boolean) => (
    <li
      key={s.id ?? s.label}
      id={sourceAnchor(attemptId, s.label)}
      tabIndex={-1}
      className={s.available ? 'source' : 'source unavailable'}
      data-testid="source"
      data-cited={isCited}
      data-kind={s.kind}
    >
      <strong>[{s.label}]</strong>{' '}
      {s.kind === 'ATTACHMENT' && (
        <span className="source-kind" data-testid="source-kind">
          {t.attachmentSource}
        </span>
      )}{' '}
      {s.available ? (
        <>
          <span className="doc-title">{s.attachment?.name ?? s.documentTitle}</span>
          <blockquote>{s.snippet}</blockquote>
        </>
      ) : (
        <em className="doc-title">{t.noLongerAvailable}</em>
      )}
    </li>
  );
  return (
    <section className="sources" aria-label={t.sources}>
      <h4>{t.sources}</h4>
      {cited.length > 0 && <ol>{cited.map((s) => item(s, final))}</ol>}
      {more.length > 0 && (
        <details className="more-sources" data-testid="more-sources">
          <summary>{t.moreSources(more.length)}</summary>
          <ol>{more.map((s) => item(s, false))}</ol>
        </details>
      )}
    </section>
  );
}
