// OpenID Connect sign-in: authorization code with PKCE (oidc-client-ts),
// against the issuer the server names in /console-config.json. The console
// is a public client (no secret); the access token it receives is the
// bearer token it sends to /graphql. Loaded only when used.
import { UserManager, WebStorageStateStore } from 'oidc-client-ts';
import { setToken } from './token';

/** The OIDC settings of /console-config.json. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  scope: string;
}

function manager(cfg: OidcSettings): UserManager {
  return new UserManager({
    authority: cfg.issuer,
    client_id: cfg.clientId,
    redirect_uri: `${location.origin}/signin`,
    // A hidden iframe's page for signinSilent when there is no refresh
    // token; /signin/silent may be framed by this origin only.
    silent_redirect_uri: `${location.origin}/signin/silent`,
    response_type: 'code', // with PKCE (S256), oidc-client-ts's default
    scope: cfg.scope,
    userStore: new WebStorageStateStore({ store: sessionStorage }),
  });
}

/** Sends the browser to the issuer's sign-in page. */
export async function startSignIn(cfg: OidcSettings): Promise<void> {
  await manager(cfg).signinRedirect();
}

/**
 * Finishes a sign-in when the issuer redirected back to /signin with a
 * code: exchanges it (with the PKCE verifier) and stores the access token.
 * Returns false when the URL carries no sign-in response.
 */
export async function finishSignIn(cfg: OidcSettings): Promise<boolean> {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) return false;
  const user = await manager(cfg).signinRedirectCallback();
  setToken(user.access_token, 'oidc');
  return true;
}

/**
 * Renews the access token without leaving the page: with the refresh
 * token when the issuer gave one, else in a hidden iframe (prompt=none)
 * that the issuer answers from its own session. Returns false when the
 * issuer wants the user to sign in again.
 */
export async function renewSilently(cfg: OidcSettings): Promise<boolean> {
  try {
    const user = await manager(cfg).signinSilent();
    if (!user?.access_token) return false;
    setToken(user.access_token, 'oidc');
    return true;
  } catch {
    return false;
  }
}

/** Finishes a silent renew inside its hidden iframe (/signin/silent). */
export async function finishSilentRenew(cfg: OidcSettings): Promise<void> {
  await manager(cfg).signinSilentCallback();
}
