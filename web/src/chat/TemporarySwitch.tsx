// The temporary-chat switch beside "New conversation": hidden when the
// tenant forbids temporary chats, on and locked when it enforces them.
import { useT } from '../i18n';
import type { TemporaryPolicy } from '../organise/temporaryPolicy';

export function TemporarySwitch({ policy, on, onChange }: { policy: TemporaryPolicy | null; on: boolean; onChange: (on: boolean) => void }) {
  const t = useT();
  if (policy === null || policy === 'FORBIDDEN') return null;
  const enforced = policy === 'ENFORCED';
  return (
    <label className="temporary-switch" title={enforced ? t.temporaryEnforced : undefined}>
      <input type="checkbox" role="switch" data-testid="temporary-switch" checked={enforced || on} disabled={enforced} onChange={(e) => onChange(e.target.checked)} />{' '}
      {t.temporaryChat}
      {enforced && <small className="muted"> {t.temporaryEnforced}</small>}
    </label>
  );
}
