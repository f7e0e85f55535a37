// Helpers for Relay connections as entgql types them (nullable edges and
// nodes).

/** The non-null nodes of a connection's edges. */
export function nodes<N>(edges: readonly ({ node?: N | null } | null)[] | null | undefined): N[] {
  const out: N[] = [];
  for (const e of edges ?? []) if (e?.node) out.push(e.node);
  return out;
}
