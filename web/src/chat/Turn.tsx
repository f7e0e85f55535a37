// One turn of the current branch: a question and the answer after it on
// the path. The question can be edited in place (a new sibling question
// and its answer, editMessage) and shows "‹ n / m ›" when it has siblings
// (its edits); the answer shows the attempt that wrote it, or the latest
// attempt while there is no answer message yet (the live stream of a
// PENDING one with Stop, or why it FAILED), "‹ n / m ›" over its siblings
// (regenerated answers), Regenerate (retryAttempt, at any depth), the
// question's attempts as tabs (retries included), feedback, the rewritten
// question and the sources panel. Switching a version calls selectBranch;
// the view then reads the path again.
import { useQuery, useFragment } from '@apollo/client/react';
import { useRef, useState, type ReactNode } from 'react';
import type { AttemptFieldsFragment, PathMessageFieldsFragment, SourceFieldsFragment } from '../gql/graphql';
import { AttemptFields, AttemptQuery } from '../operations';
import { useT } from '../i18n';
import { AnswerMarkdown } from './Markdown';
import { SourcesPanel, sourceAnchor } from './Sources';
import { StreamingAnswer } from './StreamingAnswer';
import { FeedbackBox } from './Feedback';
import { StaleBadge } from './StaleBadge';
import { isComposingEnter } from './Composer';
import { newId } from '../ids';
import { siblingAt } from './path';

/** The id of an attempt's element, the target of "show the running answer". */
export function attemptAnchor(attemptId: string): string {
  return `attempt-${attemptId}`;
}

/** What a turn asks the conversation view to do; errors are shown by the view. */
export interface TurnActions {
  /** editMessage; true once accepted (the edit box then closes). */
  edit: (messageId: string, question: string, clientMessageId: string) => Promise<boolean>;
  /** selectBranch on a sibling. */
  select: (messageId: string) => Promise<void>;
  /** retryAttempt on the attempt, adding the new one to the question's attempts. */
  regenerate: (questionId: string, attemptId: string) => Promise<void>;
  /** reaskAttempt: the stale answer's question asked again on the current branch. */
  reask: (attemptId: string) => Promise<void>;
  cancel: (attemptId: string) => void;
}

export interface TurnProps {
  question: PathMessageFieldsFragment | null;
  answer: PathMessageFieldsFragment | null;
  readOnly: boolean;
  /** An answer is running or a rate limit counts down: no edit, no regenerate. */
  locked: boolean;
  actions: TurnActions;
}

export function Turn({ question, answer, readOnly, locked, actions }: TurnProps) {
  const t = useT();
  const attempts = [...(question?.attempts ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const [picked, setPicked] = useState<string | null>(null);
  const latest = attempts[attempts.length - 1];
  // A running attempt first (a regeneration not on the path yet), then the
  // answer on the path, then the latest attempt (unanswered or FAILED).
  const current = latest?.status === 'PENDING' ? latest.id : (answer?.attemptId ?? latest?.id ?? null);
  const shownId = (picked && attempts.some((a) => a.id === picked) ? picked : null) ?? current;
  const [editing, setEditing] = useState(false);

  return (
    <article className="turn" data-testid="turn" data-question-id={question?.id} data-answer-id={answer?.id}>
      {question && (
        <div className="question-row">
          {editing ? (
            <EditBox message={question} onDone={() => setEditing(false)} onEdit={actions.edit} locked={locked} />
          ) : (
            <>
              <div className="question" lang="" data-testid="question-text">
                {question.content}
              </div>
              <div className="question-tools">
                <Versions message={question} onSelect={actions.select} testid="question-versions" />
                {!readOnly && (
                  <button type="button" className="link" onClick={() => setEditing(true)} disabled={locked} data-testid="edit">
                    {t.edit}
                  </button>
                )}
              </div>
            </>
          )}
        </div>
      )}
      {attempts.length > 1 && (
        <nav className="retries" aria-label={t.retries}>
          {attempts.map((a, i) => (
            <button key={a.id} type="button" aria-pressed={a.id === shownId} onClick={() => setPicked(a.id)} data-testid="attempt-tab" data-status={a.status}>
              {t.attemptN(i + 1)} · {a.status}
            </button>
          ))}
        </nav>
      )}
      {shownId && (
        <AttemptById
          key={shownId}
          id={shownId}
          readOnly={readOnly}
          locked={locked}
          versions={answer && answer.attemptId === shownId ? <Versions message={answer} onSelect={actions.select} testid="answer-versions" /> : null}
          onRetry={question ? (attemptId) => {
            setPicked(null);
            void actions.regenerate(question.id, attemptId);
          } : undefined}
          onCancel={actions.cancel}
          onReask={actions.reask}
        />
      )}
    </article>
  );
}

/** "‹ n / m ›" over a message's siblings, when it has more than one. */
function Versions({ message, onSelect, testid }: { message: PathMessageFieldsFragment; onSelect: (id: string) => Promise<void>; testid: string }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const s = message.siblings;
  if (s.count < 2) return null;
  const go = (step: number) => {
    const to = siblingAt(s.ids, s.index, step);
    if (!to || busy) return;
    setBusy(true);
    void onSelect(to).finally(() => setBusy(false));
  };
  return (
    <nav className="versions" aria-label={t.versions} data-testid={testid} data-index={s.index} data-count={s.count}>
      <button type="button" onClick={() => go(-1)} disabled={busy || s.index === 0} aria-label={t.previousVersion} data-testid="version-prev">
        ‹
      </button>
      <span aria-label={t.versionOf(s.index + 1, s.count)} data-testid="version-label">
        {s.index + 1} / {s.count}
      </span>
      <button type="button" onClick={() => go(1)} disabled={busy || s.index === s.count - 1} aria-label={t.nextVersion} data-testid="version-next">
        ›
      </button>
    </nav>
  );
}

/**
 * The question edited in place. Enter sends, Shift+Enter adds a line, Esc
 * cancels, and Enter while an input method composes only confirms the
 * composition. A submission keeps its clientMessageId until the server
 * accepts it, so sending the same edit again cannot edit twice.
 */
function EditBox({ message, onEdit, onDone, locked }: { message: PathMessageFieldsFragment; onEdit: TurnActions['edit']; onDone: () => void; locked: boolean }) {
  const t = useT();
  const [text, setText] = useState(message.content);
  const composing = useRef(false);
  const pendingId = useRef<{ q: string; id: string } | null>(null);
  const [sending, setSending] = useState(false);
  const q = text.trim();
  const canSend = !!q && q !== message.content.trim() && !locked && !sending;
  const send = async () => {
    if (!canSend) return;
    if (pendingId.current?.q !== q) pendingId.current = { q, id: newId() };
    setSending(true);
    const ok = await onEdit(message.id, q, pendingId.current.id);
    setSending(false);
    if (ok) {
      pendingId.current = null;
      onDone();
    }
  };
  return (
    <form
      className="edit-question"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <textarea
        data-testid="edit-box"
        aria-label={t.editLabel}
        value={text}
        rows={2}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onCompositionStart={() => {
          composing.current = true;
        }}
        onCompositionEnd={() => {
          setTimeout(() => {
            composing.current = false;
          }, 0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && !isComposingEnter(e.nativeEvent, composing.current)) {
            e.preventDefault();
            onDone();
            return;
          }
          if (e.key !== 'Enter' || e.shiftKey) return;
          if (isComposingEnter(e.nativeEvent, composing.current)) return;
          e.preventDefault();
          void send();
        }}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={!canSend} data-testid="edit-save">
          {t.saveEdit}
        </button>
        <button type="button" onClick={onDone} data-testid="edit-cancel">
          {t.cancelEdit}
        </button>
      </div>
    </form>
  );
}

interface AttemptByIdProps {
  id: string;
  readOnly: boolean;
  locked: boolean;
  versions: ReactNode;
  onRetry?: (attemptId: string) => void;
  onCancel: (id: string) => void;
  onReask?: (attemptId: string) => Promise<void>;
}

/**
 * An attempt read whole from the cache; one the path brought without its
 * lists (a question's attempts) is read with attempt(id) first.
 */
function AttemptById(props: AttemptByIdProps) {
  const { data, complete } = useFragment({ fragment: AttemptFields, fragmentName: 'AttemptFields', from: { __typename: 'Attempt', id: props.id } });
  useQuery(AttemptQuery, { variables: { id: props.id }, skip: complete });
  if (!complete) return <div className="attempt muted" data-testid="attempt-loading">…</div>;
  return <AttemptView attempt={data} {...props} />;
}

function AttemptView({ attempt, readOnly, locked, versions, onRetry, onCancel, onReask }: AttemptByIdProps & { attempt: AttemptFieldsFragment }) {
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
          {versions}
          {!readOnly && onRetry && (
            <button type="button" onClick={() => onRetry(attempt.id)} disabled={locked} data-testid="retry">
              {attempt.status === 'FAILED' ? t.retry : t.regenerate}
            </button>
          )}
          {!readOnly && attempt.status === 'COMPLETED' && <FeedbackBox attempt={attempt} />}
        </div>
      )}
      {attempt.status === 'COMPLETED' && <StaleBadge attemptId={attempt.id} readOnly={readOnly} locked={locked} onReask={onReask} />}
      <SourcesPanel attemptId={attempt.id} sources={sources} answer={pending ? '' : attempt.answer} final={!pending} />
    </div>
  );
}
