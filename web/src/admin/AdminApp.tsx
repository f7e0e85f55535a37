// The admin console, loaded on demand (a separate chunk): the tenant's
// conversations, feedback, usage, knowledge, tenant settings, model
// profiles and audit events, and the attempt inspector, in English or Chinese
// (src/admin/i18n.ts). Every view reads admin-only fields; for a member
// the API answers FORBIDDEN and the console says so.
import { useEffect, useState } from 'react';
import { AdminConversations } from './Conversations';
import { FeedbackPage } from './FeedbackPage';
import { UsagePage } from './UsagePage';
import { KnowledgePage } from './KnowledgePage';
import { AttemptInspector } from './AttemptInspector';
import { SettingsPage } from './SettingsPage';
import { ModelsPage } from './ModelsPage';
import { AuditPage } from './AuditPage';
import { useAdminT } from './i18n';

/** The admin pages, each at /admin/<tab>. */
export const tabs = ['conversations', 'feedback', 'usage', 'knowledge', 'settings', 'models', 'audit'] as const;
type Tab = (typeof tabs)[number];

function tabFromPath(): Tab {
  const t = location.pathname.split('/')[2] as Tab;
  return tabs.includes(t) ? t : 'conversations';
}

export default function AdminApp() {
  const t = useAdminT();
  const [tab, setTab] = useState<Tab>(tabFromPath);
  const [attemptId, setAttemptId] = useState<string | null>(null);
  useEffect(() => {
    const onPop = () => setTab(tabFromPath());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const go = (next: Tab) => {
    history.pushState(null, '', `/admin/${next}`);
    setTab(next);
    setAttemptId(null);
  };
  return (
    <main className="admin">
      <nav className="admin-tabs" aria-label={t.nav}>
        {tabs.map((k) => (
          <button key={k} type="button" aria-pressed={k === tab} onClick={() => go(k)} data-testid={`admin-tab-${k}`}>
            {t.tabs[k]}
          </button>
        ))}
      </nav>
      {attemptId && <AttemptInspector id={attemptId} onClose={() => setAttemptId(null)} />}
      {tab === 'conversations' && <AdminConversations onInspect={setAttemptId} />}
      {tab === 'feedback' && <FeedbackPage onInspect={setAttemptId} />}
      {tab === 'usage' && <UsagePage />}
      {tab === 'knowledge' && <KnowledgePage />}
      {tab === 'settings' && <SettingsPage />}
      {tab === 'models' && <ModelsPage />}
      {tab === 'audit' && <AuditPage />}
    </main>
  );
}
