// The bearer token the console sends, kept in sessionStorage (one tab's
// sign-in; closing the tab signs out). Sign-in pages store it; an expired
// or refused token sends the user back to /signin with the page to return
// to, and drafts stay in localStorage meanwhile.

const key = 'ragchat.token';
const sourceKey = 'ragchat.token.source';
const returnKey = 'ragchat.return';

/** Where a token came from: OIDC tokens can be renewed silently. */
export type TokenSource = 'dev' | 'oidc';

/** The current token, or null. */
export function getToken(): string | null {
  return sessionStorage.getItem(key);
}

/** Stores a token from a sign-in. */
export function setToken(token: string, source: TokenSource = 'dev'): void {
  sessionStorage.setItem(key, token);
  sessionStorage.setItem(sourceKey, source);
}

/** Where the current token came from. */
export function getTokenSource(): TokenSource {
  return sessionStorage.getItem(sourceKey) === 'oidc' ? 'oidc' : 'dev';
}

/** Forgets the token. */
export function clearToken(): void {
  sessionStorage.removeItem(key);
  sessionStorage.removeItem(sourceKey);
}

/** Seconds until the token's exp claim (negative when expired), or null. */
export function tokenSecondsLeft(token: string, now = Date.now()): number | null {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return typeof payload.exp === 'number' ? payload.exp - now / 1000 : null;
  } catch {
    return null;
  }
}

/** Goes to the sign-in page, remembering where to come back to. */
export function signInAgain(): void {
  if (location.pathname === '/signin') return;
  sessionStorage.setItem(returnKey, location.pathname + location.search);
  clearToken();
  location.assign('/signin');
}

/** Where to go after signing in. */
export function takeReturnPath(): string {
  const p = sessionStorage.getItem(returnKey) ?? '/';
  sessionStorage.removeItem(returnKey);
  return p.startsWith('/') && !p.startsWith('//') ? p : '/';
}
