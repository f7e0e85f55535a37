// The console's shell: routes by path (/signin, /admin…, else chat), the
// header with the viewer, the language switch and sign-out, and the
// "connection lost" banner.
import { ApolloProvider, useQuery } from '@apollo/client/react';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { makeClient, onConnectionChange } from './apollo';
import { clearToken, getToken, signInAgain } from './auth/token';
import { reauthenticate, scheduleRenewal } from './auth/session';
import { I18n, initialLang, strings, useT, type Lang } from './i18n';
import { ViewerQuery } from './operations';
import { ChatApp } from './chat/ChatApp';
import { SignIn } from './signin/SignIn';
import { toUiError } from './errors';
import { ErrorNote } from './chat/ErrorNote';

const AdminApp = lazy(() => import('./admin/AdminApp'));
const SharePage = lazy(() => import('./share/SharePage'));
const SilentRenew = lazy(() => import('./signin/SilentRenew'));

export function App() {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const i18n = useMemo(
    () => ({
      t: strings(lang),
      lang,
      setLang: (l: Lang) => {
        localStorage.setItem('ragchat.lang', l);
        setLangState(l);
      },
    }),
    [lang],
  );
  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  }, [lang]);
  const path = location.pathname;
  const signedIn = !!getToken();
  // A share (/s/<token>) renders without sign-in: PUBLIC links need none.
  const share = path.startsWith('/s/') ? decodeURIComponent(path.slice(3)) : null;
  useEffect(() => {
    if (path !== '/signin' && path !== '/signin/silent' && share === null && !signedIn) signInAgain();
  }, [path, signedIn, share]);
  useEffect(() => (signedIn ? scheduleRenewal() : undefined), [signedIn]);
  const client = useMemo(() => makeClient(() => void reauthenticate(), reauthenticate), []);
  if (path === '/signin/silent') {
    return (
      <Suspense fallback={null}>
        <SilentRenew />
      </Suspense>
    );
  }
  if (share !== null) {
    return (
      <I18n.Provider value={i18n}>
        <Suspense fallback={null}>
          <SharePage token={share} />
        </Suspense>
      </I18n.Provider>
    );
  }
  if (path === '/signin') {
    return (
      <I18n.Provider value={i18n}>
        <SignIn />
      </I18n.Provider>
    );
  }
  if (!signedIn) return null;
  return (
    <I18n.Provider value={i18n}>
      <ApolloProvider client={client}>
        <Shell admin={path === '/admin' || path.startsWith('/admin/')} />
      </ApolloProvider>
    </I18n.Provider>
  );
}

function Shell({ admin }: { admin: boolean }) {
  const t = useT();
  const { data, error, refetch } = useQuery(ViewerQuery);
  const [online, setOnline] = useState(true);
  useEffect(() => onConnectionChange(setOnline), []);
  const uiError = error ? toUiError(error) : null;
  useEffect(() => {
    if (uiError?.kind === 'signIn') signInAgain();
  }, [uiError?.kind]);
  return (
    <div className="shell">
      <header className="topbar">
        <strong>{t.appName}</strong>
        <a href="/" aria-current={!admin ? 'page' : undefined}>
          {t.chat}
        </a>
        <a href="/admin" aria-current={admin ? 'page' : undefined}>
          {t.admin}
        </a>
        <span className="spacer" />
        {!online && (
          <span className="offline" role="status">
            {t.reconnecting}
          </span>
        )}
        <LangSwitch />
        <span className="muted" data-testid="viewer">
          {data?.viewer.userId}
        </span>
        <button
          type="button"
          onClick={() => {
            clearToken();
            location.assign('/signin');
          }}
        >
          {t.signOut}
        </button>
      </header>
      {uiError && uiError.kind !== 'signIn' && <ErrorNote error={uiError} onRetry={() => void refetch()} />}
      {admin ? (
        <Suspense fallback={<p className="muted">…</p>}>
          <AdminApp />
        </Suspense>
      ) : (
        <ChatApp />
      )}
    </div>
  );
}

function LangSwitch() {
  const t = useT();
  return (
    <I18n.Consumer>
      {({ lang, setLang }) => (
        <button type="button" onClick={() => setLang(lang === 'zh' ? 'en' : 'zh')}>
          {t.language}
        </button>
      )}
    </I18n.Consumer>
  );
}
