// Shows a UiError in the user's language, with what to do about it: sign
// in again, wait out a RATE_LIMITED countdown, follow the link to the
// running answer of a CONVERSATION_BUSY, or retry after UNAVAILABLE.
import type { UiError } from '../errors';
import { useT } from '../i18n';
import { signInAgain } from '../auth/token';

export interface ErrorNoteProps {
  error: UiError;
  /** UNAVAILABLE and network failures: a Retry button calls it. */
  onRetry?: () => void;
  /** RATE_LIMITED: the seconds left of the countdown (else retryAfterSeconds). */
  secondsLeft?: number;
  /** CONVERSATION_BUSY: the link to the running answer. */
  busyHref?: string;
}

export function ErrorNote({ error, onRetry, secondsLeft, busyHref }: ErrorNoteProps) {
  const t = useT();
  let text: string;
  switch (error.kind) {
    case 'rateLimited':
      text = t.errors.rateLimited(secondsLeft ?? error.retryAfterSeconds ?? 60);
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
  const banner = error.kind === 'unavailable' && onRetry;
  return (
    <div className={`error error-${error.kind}${banner ? ' banner' : ''}`} role="alert" data-code={error.code} data-testid="error">
      {error.kind === 'rateLimited' ? (
        <span data-testid="rate-limit-countdown" data-seconds={secondsLeft ?? error.retryAfterSeconds}>
          {text}
        </span>
      ) : (
        text
      )}
      {error.kind === 'busy' && busyHref && (
        <>
          {' '}
          <a href={busyHref} data-testid="running-answer-link">
            {t.showRunningAnswer}
          </a>
        </>
      )}
      {error.kind === 'signIn' && (
        <button type="button" onClick={signInAgain}>
          {t.signIn}
        </button>
      )}
      {banner && (
        <button type="button" onClick={onRetry} data-testid="retry-banner">
          {t.retry}
        </button>
      )}
    </div>
  );
}
