// The composer's attach button and the conversation's attachment list. The
// button uploads a file into the conversation through POST /files
// (docs/API.md, "Attachments") with the bearer token. The list shows every
// attachment of the conversation (Conversation.attachments, so earlier
// sessions' uploads too) with its status kept live by the conversation's
// conversationEvents ATTACHMENT_UPDATED (READY, or FAILED with its failure
// code; also in a temporary chat, which viewerEvents never mentions), followed by
// this session's uploads still in flight and the files the server refused
// (with its message; a refused file is never stored). The files this
// session uploaded since the last question are pending: once READY they go
// with the next question (onReady, AskInput.attachmentIds), and a new
// clearKey (a question was accepted with them) ends their pending state;
// they stay in the list as the conversation's attachments. Events sent
// before the subscription is live are lost (docs/API.md, "Knowing a
// stream is live"): the list is read again on each SUBSCRIBED (the first,
// and the one after every reconnect), from which on data-events="live"
// says every change reaches it, until the socket drops.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useApolloClient, useSubscription } from '@apollo/client/react';
import { onConnectionChange } from '../apollo';
import { getToken } from '../auth/token';
import { useT } from '../i18n';
import type { ConversationAttachmentsQuery as ConversationAttachmentsResult } from '../gql/graphql';
import { AttachmentEventsSubscription, ConversationAttachmentsQuery } from './attachmentOperations';

// Attachment is a stored attachment as the list reads it.
type Attachment = NonNullable<ConversationAttachmentsResult['conversation']>['attachments'][number];

// Row is one line of the list: a stored attachment (id set) or a local
// upload (UPLOADING, or REFUSED with the server's message).
interface Row {
  key: string;
  name: string;
  status: string;
  detail?: string;
  pending?: boolean;
}

export interface AttachButtonProps {
  conversationId: string;
  /** Called with the ids of the pending READY uploads whenever they change. */
  onReady?: (ids: string[]) => void;
  /** Changing it ends the pending state: its files went with a question. */
  clearKey?: number;
}

export function AttachButton({ conversationId, onReady, clearKey }: AttachButtonProps) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [local, setLocal] = useState<Row[]>([]);
  // live holds the statuses the events reported since the last read,
  // each with the number of the event that set it (eventNo), so that a read
  // clears only what it may have seen: an event that arrives while a read
  // is under way may be newer than what that read returns.
  const [live, setLive] = useState<Record<string, { status: string; no: number }>>({});
  const eventNo = useRef(0);
  // subscribed: the subscription's SUBSCRIBED came and the socket has not
  // dropped since.
  const [subscribed, setSubscribed] = useState(false);
  const inFlight = useRef(0);
  const seq = useRef(0);
  // pending holds the ids this session uploaded since the last question.
  const [pending, setPending] = useState<string[]>([]);
  // The stored list as the newest read that has returned (reads are
  // numbered as they start; one that started before the last applied one
  // is dropped, so an older answer never replaces a newer one).
  const client = useApolloClient();
  const [read, setRead] = useState<{ conversationId: string; attachments: Attachment[] } | null>(null);
  const reads = useRef(0);
  const applied = useRef(0);
  const stored = read?.conversationId === conversationId ? read.attachments : [];
  const storedIds = useRef(new Set<string>());
  storedIds.current = new Set(stored.map((a) => a.id));

  // reread reads the list again, not joined to a read already under way
  // (that one may predate the events that asked for this one), and clears
  // the live statuses it has seen: those of the events received before it
  // started, each published after its change was stored.
  const reread = useCallback(async () => {
    const n = ++reads.current;
    const from = eventNo.current;
    try {
      const res = await client.query({
        query: ConversationAttachmentsQuery,
        variables: { id: conversationId },
        fetchPolicy: 'no-cache',
        context: { queryDeduplication: false },
      });
      if (n <= applied.current) return;
      applied.current = n;
      setRead({ conversationId, attachments: res.data?.conversation?.attachments ?? [] });
      setLive((all) => Object.fromEntries(Object.entries(all).filter(([, v]) => v.no > from)));
    } catch {
      // The list keeps what it showed; the next event reads it again.
    }
  }, [client, conversationId]);

  // Another conversation starts with its own list, read at once (and
  // again when the feed is live).
  useEffect(() => {
    setLocal([]);
    setLive({});
    setSubscribed(false);
    void reread();
  }, [reread]);
  useEffect(() => {
    setPending([]);
  }, [conversationId, clearKey]);

  useSubscription(AttachmentEventsSubscription, {
    variables: { conversationId },
    onData: ({ data: ev }) => {
      const e = ev.data?.conversationEvents;
      if (e?.kind === 'SUBSCRIBED') {
        setSubscribed(true);
        void reread();
        return;
      }
      if (e?.kind !== 'ATTACHMENT_UPDATED' || !e.attachmentId) return;
      const id = e.attachmentId;
      const no = ++eventNo.current;
      if (e.attachmentStatus) setLive((all) => ({ ...all, [id]: { status: e.attachmentStatus as string, no } }));
      // A file uploaded elsewhere (another tab or device) is read in; this
      // session's own uploads are read in when their upload returns.
      if (!storedIds.current.has(id) && inFlight.current === 0) void reread();
    },
  });

  // Until the resubscription's SUBSCRIBED, changes may be missed.
  useEffect(() => onConnectionChange((up) => !up && setSubscribed(false)), []);

  const upload = async (file: File) => {
    const key = `local-${++seq.current}`;
    const set = (u: Partial<Row>) => setLocal((all) => all.map((x) => (x.key === key ? { ...x, ...u } : x)));
    setLocal((all) => [...all, { key, name: file.name, status: 'UPLOADING' }]);
    inFlight.current++;
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
      // Stored: it is pending for the next question, the list reads it in
      // and the local line gives way.
      if (body.id) setPending((all) => [...all, body.id as string]);
      await reread();
      setLocal((all) => all.filter((x) => x.key !== key));
    } catch (e) {
      set({ status: 'REFUSED', detail: String(e) });
    } finally {
      inFlight.current--;
    }
  };

  const label = (u: Row) => {
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

  const rows: Row[] = [
    ...stored.map((a) => ({
      key: a.id,
      name: a.name,
      status: live[a.id]?.status ?? a.status,
      detail: a.failureCode ?? undefined,
      pending: pending.includes(a.id),
    })),
    ...local,
  ];
  const readyIds = rows
    .filter((u) => u.pending && u.status === 'READY')
    .map((u) => u.key)
    .join(',');
  useEffect(() => {
    onReady?.(readyIds ? readyIds.split(',') : []);
  }, [readyIds, onReady]);

  return (
    <div className="attach" data-testid="attach" data-events={subscribed ? 'live' : 'down'}>
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
      {rows.length > 0 && (
        <ul className="attachments" aria-label={t.attachments}>
          {rows.map((u) => (
            <li key={u.key} data-testid="attachment" data-status={u.status} data-pending={u.pending ? 'true' : undefined}>
              <span className="attachment-name">{u.name}</span>{' '}
              <span className="muted" data-testid="attachment-status">
                {label(u)}
              </span>
              {u.pending && u.status === 'READY' && (
                <span className="muted" data-testid="attachment-pending">
                  {' · '}
                  {t.attachPending}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
