// The page an OpenID Connect issuer redirects a hidden iframe to during a
// silent renew (/signin/silent): it hands the response to the parent
// window's oidc-client-ts and shows nothing.
import { useEffect } from 'react';
import { consoleConfig } from '../auth/session';

export default function SilentRenew() {
  useEffect(() => {
    void (async () => {
      const cfg = await consoleConfig();
      if (!cfg.oidc) return;
      const { finishSilentRenew } = await import('../auth/oidc');
      await finishSilentRenew(cfg.oidc);
    })();
  }, []);
  return null;
}
