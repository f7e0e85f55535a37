// OpenID Connect sign-in (authorization code with PKCE). Not yet wired:
// see web/README.md, "Sign-in".
export async function startSignIn(_cfg: { issuer: string; clientId: string; scope: string }): Promise<void> {
  throw new Error('OpenID Connect sign-in is not implemented yet');
}
