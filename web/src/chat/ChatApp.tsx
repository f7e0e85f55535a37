// The member's console: the conversation list beside the open
// conversation. The open conversation is in the URL (/c/<id>).
import { useEffect, useState } from 'react';
import { ConversationList } from './ConversationList';
import { ConversationView } from './ConversationView';
import { useT } from '../i18n';

function idFromPath(): string | null {
  const m = location.pathname.match(/^\/c\/([^/]+)$/);
  return m ? decodeURIComponent(m[1]) : null;
}

export function ChatApp() {
  const t = useT();
  const [id, setId] = useState<string | null>(idFromPath);
  useEffect(() => {
    const onPop = () => setId(idFromPath());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const select = (next: string | null) => {
    history.pushState(null, '', next ? `/c/${encodeURIComponent(next)}` : '/');
    setId(next);
  };
  return (
    <div className="chat">
      <ConversationList selected={id} onSelect={select} />
      <main className="chat-main">{id ? <ConversationView key={id} id={id} /> : <p className="muted">{t.pickConversation}</p>}</main>
    </div>
  );
}
