// The question box. Enter sends, Shift+Enter adds a line, and Enter while an
// input method is composing (Chinese, Japanese…) only confirms the
// composition: it never sends. The draft is kept per conversation in
// localStorage, so it survives a sign-in after an expired token. A question
// keeps its clientMessageId until it is accepted, so resending after a
// network error cannot ask twice.
import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { useT } from '../i18n';
import { newId } from '../ids';
import { AttachButton } from './AttachButton';

/** True when this Enter keydown belongs to an IME composition. */
export function isComposingEnter(e: { isComposing?: boolean; keyCode?: number }, composing: boolean): boolean {
  // keyCode 229 is what browsers report for keys the IME consumed; Safari
  // fires compositionend before the keydown, hence the flag.
  return composing || e.isComposing === true || e.keyCode === 229;
}

export interface ComposerProps {
  conversationId: string;
  /** Send is disabled (the draft stays editable), for the reason shown. */
  disabled: boolean;
  /** Why Send is disabled: an answer running, a rate-limit countdown. */
  reason?: ReactNode;
  /** attachmentIds: the READY files attached since the last question. */
  onAsk: (question: string, clientMessageId: string, attachmentIds: string[]) => Promise<boolean>;
  /** Set to the composer's send, for a Retry banner to resend the draft. */
  sendRef?: RefObject<(() => void) | null>;
}

export function Composer({ conversationId, disabled, reason, onAsk, sendRef }: ComposerProps) {
  const t = useT();
  const draftKey = `ragchat.draft.${conversationId}`;
  const [text, setText] = useState(() => localStorage.getItem(draftKey) ?? '');
  const composing = useRef(false);
  const pendingId = useRef<{ q: string; id: string } | null>(null);
  const [sending, setSending] = useState(false);
  // The READY attachments the next question is asked with; cleared (with
  // the attach list) once a question is accepted.
  const [attachmentIds, setAttachmentIds] = useState<string[]>([]);
  const [sent, setSent] = useState(0);

  useEffect(() => {
    setText(localStorage.getItem(draftKey) ?? '');
  }, [draftKey]);

  const update = (v: string) => {
    setText(v);
    if (v) localStorage.setItem(draftKey, v);
    else localStorage.removeItem(draftKey);
  };

  const send = async () => {
    const q = text.trim();
    if (!q || disabled || sending) return;
    if (pendingId.current?.q !== q) pendingId.current = { q, id: newId() };
    setSending(true);
    const ok = await onAsk(q, pendingId.current.id, attachmentIds);
    setSending(false);
    if (ok) {
      pendingId.current = null;
      update('');
      if (attachmentIds.length > 0) setSent((n) => n + 1);
    }
  };
  if (sendRef) sendRef.current = () => void send();

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <textarea
        data-testid="question"
        aria-label={t.askPlaceholder}
        placeholder={t.askPlaceholder}
        value={text}
        rows={2}
        onChange={(e) => update(e.target.value)}
        onCompositionStart={() => {
          composing.current = true;
        }}
        onCompositionEnd={() => {
          // The Enter that ends a composition arrives after compositionend
          // in some browsers: clear the flag after that keydown.
          setTimeout(() => {
            composing.current = false;
          }, 0);
        }}
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || e.shiftKey) return;
          if (isComposingEnter(e.nativeEvent, composing.current)) return;
          e.preventDefault();
          void send();
        }}
      />
      <AttachButton conversationId={conversationId} onReady={setAttachmentIds} clearKey={sent} />
      <button type="submit" disabled={disabled || sending || !text.trim()} data-testid="send" aria-describedby={`send-reason-${conversationId}`}>
        {t.ask}
      </button>
      {/* Always there, one line high, so that a reason appearing does not
          move the conversation above. */}
      <span className="send-reason muted" id={`send-reason-${conversationId}`} role="status" data-testid={reason ? 'send-reason' : undefined}>
        {reason}
      </span>
    </form>
  );
}
