// Renders a finished answer as Markdown. Raw HTML in an answer is shown as
// text, never rendered (react-markdown escapes it; no rehype-raw). Citation
// labels such as [C1] become links to the source panel's entry.
import Markdown from 'react-markdown';

/** Markdown with citation links; sourceAnchor names a label's target id. */
export function AnswerMarkdown({ text, sourceAnchor }: { text: string; sourceAnchor: (label: string) => string }) {
  const linked = text.replace(/\[(C\d+)\](?!\()/g, '[$1](#cite-$1)');
  return (
    <Markdown
      components={{
        a: ({ href, children }) => {
          const m = href?.match(/^#cite-(C\d+)$/);
          if (m) {
            return (
              <a className="cite" href={`#${sourceAnchor(m[1])}`} data-cite={m[1]}>
                [{m[1]}]
              </a>
            );
          }
          return (
            <a href={href} target="_blank" rel="noreferrer noopener">
              {children}
            </a>
          );
        },
        img: ({ alt }) => <span>{alt}</span>,
      }}
    >
      {linked}
    </Markdown>
  );
}
