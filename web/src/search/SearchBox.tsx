// The sidebar's search box: searchConversations as the viewer types (after
// a short pause), each result a conversation title and its snippet with
// the matched terms in <mark> elements built from the highlight offsets
// (src/search/highlight.ts; never innerHTML). A click opens the
// conversation.
import { useQuery } from '@apollo/client/react';
import { useEffect, useState } from 'react';
import { SearchConversationsQuery } from './operations';
import { segments } from './highlight';
import { useT } from '../i18n';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';

const pause = 250;

export function SearchBox({ onOpen }: { onOpen: (conversationId: string) => void }) {
  const t = useT();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const h = setTimeout(() => setQuery(text.trim()), pause);
    return () => clearTimeout(h);
  }, [text]);
  const { data, error } = useQuery(SearchConversationsQuery, { variables: { query, first: 20 }, skip: query === '', fetchPolicy: 'network-only' });
  const edges = query ? (data?.searchConversations.edges ?? []) : [];
  return (
    <div className="search" role="search">
      <input
        type="search"
        data-testid="search"
        value={text}
        placeholder={t.searchPlaceholder}
        aria-label={t.search}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && setText('')}
      />
      {error && <ErrorNote error={toUiError(error)} />}
      {query && data && (
        <ul className="search-results" data-testid="search-results">
          {edges.length === 0 && <li className="muted">{t.noResults}</li>}
          {edges.map((e) => (
            <li key={`${e.node.conversation.id}:${e.node.message?.id ?? ''}:${e.node.matchKind}`} data-testid="search-result">
              <a
                href={`/c/${e.node.conversation.id}`}
                onClick={(ev) => {
                  ev.preventDefault();
                  setText('');
                  onOpen(e.node.conversation.id);
                }}
              >
                <strong>{e.node.conversation.title || '…'}</strong>
                <span className="snippet" data-testid="snippet">
                  {segments(e.node.snippet.text, e.node.snippet.highlights).map((s, i) => (s.mark ? <mark key={i}>{s.text}</mark> : <span key={i}>{s.text}</span>))}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
