// Feedback on a completed answer: up or down, reasons and a comment.
// Resubmitting replaces the previous feedback.
import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import type { AttemptFieldsFragment, FeedbackReason } from '../gql/graphql';
import { FeedbackMutation } from '../operations';
import { useT } from '../i18n';
import { toUiError } from '../errors';
import { ErrorNote } from './ErrorNote';

const negativeReasons: FeedbackReason[] = ['INACCURATE', 'INCOMPLETE', 'IRRELEVANT', 'OUTDATED', 'CITATION_WRONG', 'UNSAFE', 'OTHER'];

export function FeedbackBox({ attempt }: { attempt: AttemptFieldsFragment }) {
  const t = useT();
  const existing = attempt.feedback?.[0];
  const [rating, setRating] = useState<'UP' | 'DOWN' | null>(null);
  const [reasons, setReasons] = useState<FeedbackReason[]>([]);
  const [comment, setComment] = useState('');
  const [submit, { loading, error }] = useMutation(FeedbackMutation, {
    update(cache, { data }) {
      if (!data) return;
      cache.modify({
        id: cache.identify({ __typename: 'Attempt', id: attempt.id }),
        fields: { feedback: () => [data.submitFeedback] },
      });
    },
  });
  const send = (r: 'UP' | 'DOWN', rs: FeedbackReason[], c: string) => {
    setRating(null);
    void submit({ variables: { input: { attemptId: attempt.id, rating: r, reasons: rs, comment: c || null } } });
  };
  return (
    <div className="feedback">
      <button type="button" aria-pressed={existing?.rating === 'UP'} title={t.helpful} aria-label={t.helpful} onClick={() => send('UP', ['HELPFUL'], '')}>
        👍
      </button>
      <button type="button" aria-pressed={existing?.rating === 'DOWN'} title={t.notHelpful} aria-label={t.notHelpful} onClick={() => setRating('DOWN')}>
        👎
      </button>
      {existing && !rating && <span className="muted">{t.feedbackThanks}</span>}
      {rating === 'DOWN' && (
        <form
          className="feedback-form"
          onSubmit={(e) => {
            e.preventDefault();
            send('DOWN', reasons, comment);
          }}
        >
          {negativeReasons.map((r) => (
            <label key={r}>
              <input type="checkbox" checked={reasons.includes(r)} onChange={(e) => setReasons(e.target.checked ? [...reasons, r] : reasons.filter((x) => x !== r))} />
              {r}
            </label>
          ))}
          <textarea aria-label={t.feedbackComment} placeholder={t.feedbackComment} value={comment} onChange={(e) => setComment(e.target.value)} />
          <button type="submit" disabled={loading}>
            {t.sendFeedback}
          </button>
        </form>
      )}
      {error && <ErrorNote error={toUiError(error)} />}
    </div>
  );
}
