// One question and its answer: the attempts to answer it (retries
// included, newest shown, the history selectable), the live stream of a
// PENDING one with Stop, Retry once it ended, feedback, the rewritten
// question and the sources panel.
import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import type { AttemptFieldsFragment, MessageFieldsFragment, SourceFieldsFragment } from '../gql/graphql';
import { CancelMutation, RetryMutation } from '../operations';
import { useT } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';
import { AnswerMarkdown } from './Markdown';
import { SourcesPanel, sourceAnchor } from './Sources';
import { StreamingAnswer } from './StreamingAnswer';
import { FeedbackBox } from './Feedback';
import { newId } from '../ids';

/** The id of an attempt's element, the target of "show the running answer". */
export function attemptAnchor(attemptId: string): string {
  return `attempt-${attemptId}`;
}

export function Turn({ message, readOnly }: { message: MessageFieldsFragment; readOnly: boolean }) {
  const t = useT();
  const attempts = [...(message.attempts ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const [picked, setPicked] = useState<string | null>(null);
  const latest = attempts[attempts.length - 1];
  const shown = attempts.find((a) => a.id === picked) ?? latest;
  const [error, setError] = useState<UiError | null>(null);
  const [cancel] = useMutation(CancelMutation);
  const [retry, { loading: retrying }] = useMutation(RetryMutation, {
    update(cache, { data }) {
      const a = data?.retryAttempt.attempt;
      if (!a) return;
      cache.modify({
        id: cache.identify({ __typename: 'Message', id: message.id }),
        fields: {
          attempts: (existing, { toReference }) => [...((existing as readonly unknown[] | undefined) ?? []), toReference({ __typename: 'Attempt', id: a.id })],
        },
      });
    },
  });

  const onRetry = async (a: AttemptFieldsFragment) => {
    setError(null);
    setPicked(null);
    try {
      await retry({ variables: { input: { attemptId: a.id, clientRequestId: newId() } } });
    } catch (err) {
      setError(toUiError(err));
    }
  };

  return (
    <article className="turn" data-testid="turn">
      <div className="question" lang="">
        {message.content}
      </div>
      {attempts.length > 1 && (
        <nav className="retries" aria-label={t.retries}>
          {attempts.map((a, i) => (
            <button key={a.id} type="button" aria-pressed={a.id === shown?.id} onClick={() => setPicked(a.id)} data-testid="attempt-tab" data-status={a.status}>
              {t.attemptN(i + 1)} · {a.status}
            </button>
          ))}
        </nav>
      )}
      {shown && <AttemptView key={shown.id} attempt={shown} isLatest={shown.id === latest?.id} readOnly={readOnly} onRetry={onRetry} onCancel={(id) => cancel({ variables: { id } }).catch((e) => setError(toUiError(e)))} retrying={retrying} />}
      {error && <ErrorNote error={error} />}
    </article>
  );
}

interface AttemptViewProps {
  attempt: AttemptFieldsFragment;
  isLatest: boolean;
  readOnly: boolean;
  retrying: boolean;
  onRetry: (a: AttemptFieldsFragment) => void;
  onCancel: (id: string) => void;
}

function AttemptView({ attempt, isLatest, readOnly, retrying, onRetry, onCancel }: AttemptViewProps) {
  const t = useT();
  const [liveQuestion, setLiveQuestion] = useState<string | null>(null);
  const [liveSources, setLiveSources] = useState<readonly SourceFieldsFragment[] | null>(null);
  const pending = attempt.status === 'PENDING';
  const sources = pending ? (liveSources ?? []) : (attempt.sources ?? []);
  const standalone = attempt.standaloneQuestion ?? liveQuestion;
  const rewritten = standalone && standalone.trim() !== attempt.originalQuestion.trim();
  return (
    <div className="attempt" id={attemptAnchor(attempt.id)} data-testid="attempt" data-status={attempt.status} data-attempt-id={attempt.id}>
      {rewritten && (
        <p className="standalone muted" data-testid="standalone">
          {t.rewritten}: {standalone}
        </p>
      )}
      {pending ? (
        <>
          <StreamingAnswer attemptId={attempt.id} checkpoint={attempt.answer} onStarted={setLiveQuestion} onSources={setLiveSources} />
          {!readOnly && (
            <button type="button" className="stop" onClick={() => onCancel(attempt.id)} data-testid="stop">
              {t.stop}
            </button>
          )}
        </>
      ) : (
        <div className="answer" data-testid="answer">
          <AnswerMarkdown text={attempt.answer} sourceAnchor={(l) => sourceAnchor(attempt.id, l)} />
          {attempt.status === 'FAILED' && <p className="muted">{attempt.failureCode === 'CANCELLED' ? t.cancelled : t.failed(attempt.failureCode ?? '?')}</p>}
        </div>
      )}
      {!pending && (
        <div className="actions">
          {!readOnly && isLatest && (
            <button type="button" onClick={() => onRetry(attempt)} disabled={retrying} data-testid="retry">
              {t.retry}
            </button>
          )}
          {!readOnly && attempt.status === 'COMPLETED' && <FeedbackBox attempt={attempt} />}
        </div>
      )}
      <SourcesPanel attemptId={attempt.id} sources={sources} answer={pending ? '' : attempt.answer} final={!pending} />
    </div>
  );
}
