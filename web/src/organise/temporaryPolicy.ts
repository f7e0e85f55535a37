// The tenant's temporary-chat policy as the console knows it: every viewer
// reads it (viewer.temporaryChats), and a change made meanwhile is learned
// from the server's answers (a temporary chat refused as FORBIDDEN, or a
// normal one that came back temporary under ENFORCED); it is shared by
// every component of the page (the switch, and Keep on the header).
import { useQuery } from '@apollo/client/react';
import { useSyncExternalStore } from 'react';
import { TemporaryPolicyQuery } from './operations';

/** ALLOWED, FORBIDDEN or ENFORCED (docs/API.md, "Temporary chats"). */
export type TemporaryPolicy = 'ALLOWED' | 'FORBIDDEN' | 'ENFORCED';

let learned: TemporaryPolicy | null = null;
const listeners = new Set<() => void>();

function subscribe(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** Records a policy the server's answer revealed. */
export function learnTemporaryPolicy(p: TemporaryPolicy): void {
  if (learned === p) return;
  learned = p;
  for (const f of listeners) f();
}

/**
 * Returns the known policy (null until the server's has been read) and a
 * function to record a learned one.
 */
export function useTemporaryPolicy(): [TemporaryPolicy | null, (p: TemporaryPolicy) => void] {
  const policy = useQuery(TemporaryPolicyQuery);
  const mine = useSyncExternalStore(subscribe, () => learned);
  const read = policy.data?.viewer.temporaryChats;
  const stored = read === undefined ? null : read === 'FORBIDDEN' || read === 'ENFORCED' ? read : 'ALLOWED';
  return [mine ?? stored, learnTemporaryPolicy];
}
