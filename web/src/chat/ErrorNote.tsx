// Shows a UiError in the user's language, with what to do about it.
import type { UiError } from '../errors';
import { useT } from '../i18n';
import { signInAgain } from '../auth/token';

export function ErrorNote({ error }: { error: UiError }) {
  const t = useT();
  let text: string;
  switch (error.kind) {
    case 'rateLimited':
      text = t.errors.rateLimited(error.retryAfterSeconds ?? 60);
      break;
    case 'badInput':
      text = `${t.errors.badInput} ${error.message}`;
      break;
    case 'internal':
      text = `${t.errors.internal}${error.traceId ? ` (trace ${error.traceId})` : ''}`;
      break;
    default:
      text = t.errors[error.kind];
  }
  return (
    <div className={`error error-${error.kind}`} role="alert" data-code={error.code}>
      {text}
      {error.kind === 'signIn' && (
        <button type="button" onClick={signInAgain}>
          {t.signIn}
        </button>
      )}
    </div>
  );
}
