// The composer's attach button: it uploads a file into the conversation
// through POST /files (docs/API.md, "Attachments") with the bearer token,
// and lists this session's uploads with their status (READY, or FAILED
// with its failure code; a refused file shows the server's message). The
// READY ones go with the next question (onReady, AskInput.attachmentIds);
// a new clearKey (a question was accepted with them) empties the list.
import { useEffect, useRef, useState } from 'react';
import { getToken } from '../auth/token';
import { useT } from '../i18n';

interface Upload {
  key: number;
  name: string;
  status: string;
  id?: string;
  detail?: string;
}

export interface AttachButtonProps {
  conversationId: string;
  /** Called with the ids of the READY uploads whenever they change. */
  onReady?: (ids: string[]) => void;
  /** Changing it clears the list: its files went with a question. */
  clearKey?: number;
}

export function AttachButton({ conversationId, onReady, clearKey }: AttachButtonProps) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const seq = useRef(0);

  useEffect(() => {
    setUploads([]);
  }, [conversationId, clearKey]);
  const readyIds = uploads
    .filter((u) => u.status === 'READY' && u.id)
    .map((u) => u.id as string)
    .join(',');
  useEffect(() => {
    onReady?.(readyIds ? readyIds.split(',') : []);
  }, [readyIds, onReady]);

  const upload = async (file: File) => {
    const key = ++seq.current;
    const set = (u: Partial<Upload>) => setUploads((all) => all.map((x) => (x.key === key ? { ...x, ...u } : x)));
    setUploads((all) => [...all, { key, name: file.name, status: 'UPLOADING' }]);
    const form = new FormData();
    form.append('conversationId', conversationId);
    form.append('file', file, file.name);
    try {
      const token = getToken();
      const res = await fetch('/files', {
        method: 'POST',
        body: form,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
      const body = await res.json();
      if (!res.ok) {
        set({ status: 'REFUSED', detail: body?.errors?.[0]?.message ?? String(res.status) });
        return;
      }
      set({ status: body.status, id: body.id, detail: body.failureCode ?? undefined });
    } catch (e) {
      set({ status: 'REFUSED', detail: String(e) });
    }
  };

  const label = (u: Upload) => {
    switch (u.status) {
      case 'UPLOADING':
        return t.attachUploading;
      case 'FAILED':
        return t.attachFailed(u.detail ?? '');
      case 'REFUSED':
        return u.detail ?? '';
      default:
        return u.status;
    }
  };

  return (
    <div className="attach" data-testid="attach">
      <input
        ref={input}
        type="file"
        hidden
        data-testid="attach-input"
        accept=".txt,.md,.markdown,.pdf,.docx,text/plain,text/markdown,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f) void upload(f);
        }}
      />
      <button type="button" data-testid="attach-button" title={t.attachHint} onClick={() => input.current?.click()}>
        📎 {t.attach}
      </button>
      {uploads.length > 0 && (
        <ul className="attachments" aria-label={t.attachments}>
          {uploads.map((u) => (
            <li key={u.key} data-testid="attachment" data-status={u.status}>
              <span className="attachment-name">{u.name}</span>{' '}
              <span className="muted" data-testid="attachment-status">
                {label(u)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
