// The open conversation's header: its title and status, the temporary
// badge with its expiry and Keep (keepConversation), the export buttons
// (exportConversation, JSON and Markdown) and its tags.
import { useApolloClient, useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { ExportConversationQuery, KeepConversationMutation } from '../organise/operations';
import { useTemporaryPolicy } from '../organise/temporaryPolicy';
import { download } from '../organise/download';
import { useT, type Strings } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';
import { ConversationTags } from './ConversationTags';

interface HeaderConversation {
  id: string;
  title: string;
  status: string;
  temporary: boolean;
  temporaryExpiresAt?: string | null;
  tags: { id: string; name: string; color?: string | null }[];
}

function statusLabel(t: Strings, status: string): string {
  return status === 'ARCHIVED' ? t.archived : t.expired;
}

export function ConversationHeader({ conv, onKept }: { conv: HeaderConversation; onKept?: () => void }) {
  const t = useT();
  const client = useApolloClient();
  const [keep, kept] = useMutation(KeepConversationMutation);
  const [policy] = useTemporaryPolicy();
  const [err, setErr] = useState<UiError | null>(null);
  const run = async (f: () => Promise<unknown>) => {
    setErr(null);
    try {
      await f();
    } catch (e) {
      setErr(toUiError(e));
    }
  };
  const exportAs = (format: 'JSON' | 'MARKDOWN') =>
    void run(async () => {
      const res = await client.query({ query: ExportConversationQuery, variables: { id: conv.id, format }, fetchPolicy: 'network-only' });
      const x = res.data?.exportConversation;
      if (x) download(x.filename, x.contentType, x.content);
    });
  const readOnly = conv.status !== 'ACTIVE';
  const expires = conv.temporaryExpiresAt ? new Date(conv.temporaryExpiresAt).toLocaleString() : '';
  return (
    <header className="conv-header">
      <h2>{conv.title || '…'}</h2>
      {conv.status !== 'ACTIVE' && <span className="badge">{statusLabel(t, conv.status)}</span>}
      {conv.temporary && (
        <>
          <span className="badge temporary" data-testid="temporary-badge" title={expires}>
            {expires ? t.temporaryUntil(expires) : t.temporary}
          </span>
          {policy !== 'ENFORCED' && (
            <button type="button" data-testid="keep" disabled={kept.loading} onClick={() => void run(async () => {
              await keep({ variables: { id: conv.id } });
              onKept?.();
            })}>
              {t.keep}
            </button>
          )}
        </>
      )}
      {!conv.temporary && (
        <span className="export">
          <button type="button" data-testid="export-json" onClick={() => exportAs('JSON')}>
            {t.exportJson}
          </button>
          <button type="button" data-testid="export-markdown" onClick={() => exportAs('MARKDOWN')}>
            {t.exportMarkdown}
          </button>
        </span>
      )}
      <ConversationTags conversationId={conv.id} tags={conv.tags} readOnly={readOnly} />
      {err && <ErrorNote error={err} />}
    </header>
  );
}
