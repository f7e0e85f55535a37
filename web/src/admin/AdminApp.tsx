// The admin console, loaded on demand (a separate chunk): the tenant's
// conversations, feedback, usage and knowledge, and the attempt inspector.
// Every view reads admin-only fields; for a member the API answers
// FORBIDDEN and the console says so.
import { useState } from 'react';
import { AdminConversations } from './Conversations';
import { FeedbackPage } from './FeedbackPage';
import { UsagePage } from './UsagePage';
import { KnowledgePage } from './KnowledgePage';
import { AttemptInspector } from './AttemptInspector';

const tabs = ['conversations', 'feedback', 'usage', 'knowledge'] as const;
type Tab = (typeof tabs)[number];

const labels: Record<Tab, string> = { conversations: 'Conversations', feedback: 'Feedback', usage: 'Usage', knowledge: 'Knowledge' };

function tabFromPath(): Tab {
  const t = location.pathname.split('/')[2] as Tab;
  return tabs.includes(t) ? t : 'conversations';
}

export default function AdminApp() {
  const [tab, setTab] = useState<Tab>(tabFromPath);
  const [attemptId, setAttemptId] = useState<string | null>(null);
  const go = (t: Tab) => {
    history.pushState(null, '', `/admin/${t}`);
    setTab(t);
    setAttemptId(null);
  };
  return (
    <main className="admin">
      <nav className="admin-tabs" aria-label="Admin">
        {tabs.map((t) => (
          <button key={t} type="button" aria-pressed={t === tab} onClick={() => go(t)} data-testid={`admin-tab-${t}`}>
            {labels[t]}
          </button>
        ))}
      </nav>
      {attemptId && <AttemptInspector id={attemptId} onClose={() => setAttemptId(null)} />}
      {tab === 'conversations' && <AdminConversations onInspect={setAttemptId} />}
      {tab === 'feedback' && <FeedbackPage onInspect={setAttemptId} />}
      {tab === 'usage' && <UsagePage />}
      {tab === 'knowledge' && <KnowledgePage />}
    </main>
  );
}
