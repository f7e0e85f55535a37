// The tenant's temporary-chat policy as the console knows it: admins read
// it (tenantSettings.temporaryChats); for members it is learned from the
// server's answers (a temporary chat refused as FORBIDDEN, or a normal one
// that came back temporary under ENFORCED).
import { useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { ViewerQuery } from '../operations';
import { TemporaryPolicyQuery } from './operations';

/** ALLOWED, FORBIDDEN or ENFORCED (docs/API.md, "Temporary chats"). */
export type TemporaryPolicy = 'ALLOWED' | 'FORBIDDEN' | 'ENFORCED';

/** Returns the known policy and a function to record a learned one. */
export function useTemporaryPolicy(): [TemporaryPolicy, (p: TemporaryPolicy) => void] {
  const viewer = useQuery(ViewerQuery);
  const isAdmin = viewer.data?.viewer.isAdmin ?? false;
  const settings = useQuery(TemporaryPolicyQuery, { skip: !isAdmin });
  const [learned, setLearned] = useState<TemporaryPolicy | null>(null);
  const read = settings.data?.tenantSettings.temporaryChats;
  const known = learned ?? (read === 'FORBIDDEN' || read === 'ENFORCED' ? read : 'ALLOWED');
  return [known, setLearned];
}
