// What the console does when the API refuses its token (an HTTP 401, an
// UNAUTHENTICATED error or a WebSocket closed with 4403): an OpenID
// Connect token is first renewed silently (refresh token or a hidden
// iframe); when that is impossible (development tokens) or the issuer
// wants the user back, the browser goes to /signin and returns to the same
// page afterwards. Drafts are in localStorage, so nothing typed is lost.
import { getTokenSource, signInAgain, tokenSecondsLeft, getToken } from './token';
import type { OidcSettings } from './oidc';

/** /console-config.json, as the sign-in page reads it. */
export interface ConsoleConfig {
  devSignIn: boolean;
  oidc: OidcSettings | null;
}

let config: Promise<ConsoleConfig> | null = null;

/** The server's console configuration, fetched once. */
export function consoleConfig(): Promise<ConsoleConfig> {
  config ??= fetch('/console-config.json').then((r) => r.json() as Promise<ConsoleConfig>);
  return config;
}

let renewing: Promise<boolean> | null = null;

/**
 * Renews an OIDC token silently; false for other tokens or when the issuer
 * refuses. Concurrent callers share one renewal.
 */
export function renewToken(): Promise<boolean> {
  if (getTokenSource() !== 'oidc') return Promise.resolve(false);
  renewing ??= (async () => {
    try {
      const cfg = await consoleConfig();
      if (!cfg.oidc) return false;
      const { renewSilently } = await import('./oidc');
      return await renewSilently(cfg.oidc);
    } catch {
      return false;
    } finally {
      setTimeout(() => {
        renewing = null;
      }, 0);
    }
  })();
  return renewing;
}

/**
 * Called when the token was refused: true when a silent renew got a new
 * one (the caller may retry), otherwise the browser is sent to sign in
 * again (and this resolves false).
 */
export async function reauthenticate(): Promise<boolean> {
  if (await renewToken()) return true;
  signInAgain();
  return false;
}

/**
 * Renews an OIDC token shortly before it expires, so that a reader is not
 * interrupted; returns a function that cancels the timer.
 */
export function scheduleRenewal(leadSeconds = 60): () => void {
  if (getTokenSource() !== 'oidc') return () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const plan = () => {
    const t = getToken();
    const left = t ? tokenSecondsLeft(t) : null;
    if (left === null) return;
    timer = setTimeout(
      () => void renewToken().then((ok) => ok && plan()),
      Math.max(0, (left - leadSeconds) * 1000),
    );
  };
  plan();
  return () => clearTimeout(timer);
}
