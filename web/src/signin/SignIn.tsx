// The sign-in page. The server says which methods it offers
// (/console-config.json): in development, its demo users, each minted a
// short-lived token by /dev/token; in production, OpenID Connect
// (authorization code with PKCE, src/auth/oidc.ts).
import { useEffect, useState } from 'react';
import { setToken, takeReturnPath } from '../auth/token';
import { useT } from '../i18n';

interface DevUser {
  id: string;
  roles: string[];
  groups: string[];
  description: string;
}

interface ConsoleConfig {
  devSignIn: boolean;
  oidc: { issuer: string; clientId: string; scope: string } | null;
}

export function SignIn() {
  const t = useT();
  const [cfg, setCfg] = useState<ConsoleConfig | null>(null);
  const [users, setUsers] = useState<DevUser[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void (async () => {
      try {
        const c: ConsoleConfig = await (await fetch('/console-config.json')).json();
        if (c.oidc && /[?&](code|error)=/.test(location.search)) {
          // The issuer sent the browser back: finish the PKCE exchange.
          const { finishSignIn } = await import('../auth/oidc');
          if (await finishSignIn(c.oidc)) {
            location.assign(takeReturnPath());
            return;
          }
        }
        setCfg(c);
        if (c.devSignIn) setUsers(await (await fetch('/dev/users')).json());
      } catch (err) {
        setError(String(err));
      }
    })();
  }, []);

  const devSignIn = async (user: string) => {
    const res = await fetch('/dev/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user }) });
    if (!res.ok) {
      setError(await res.text());
      return;
    }
    const { token } = await res.json();
    setToken(token);
    location.assign(takeReturnPath());
  };

  return (
    <main className="signin">
      <h1>ragchat</h1>
      {error && <p role="alert">{error}</p>}
      {cfg?.devSignIn && (
        <section>
          <p>{t.devSignIn}</p>
          <ul className="dev-users">
            {users.map((u) => (
              <li key={u.id}>
                <button type="button" data-testid={`signin-${u.id}`} onClick={() => void devSignIn(u.id)}>
                  {t.signInAs} {u.id}
                </button>{' '}
                <span className="muted">
                  {u.roles.join(', ')}
                  {u.groups.length > 0 && ` · ${u.groups.join(', ')}`} — {u.description}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {cfg?.oidc && (
        <button
          type="button"
          onClick={() =>
            void import('../auth/oidc').then((m) => m.startSignIn(cfg.oidc!))
          }
        >
          {t.oidcSignIn}
        </button>
      )}
      {cfg && !cfg.devSignIn && !cfg.oidc && <p>{t.noSignIn}</p>}
    </main>
  );
}
