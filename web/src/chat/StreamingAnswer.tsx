// Follows a PENDING attempt with attemptEvents and paints its text as it
// arrives. Each event is merged by seq (src/stream/attemptStream.ts) and
// only the appended code points are added to a DOM text node, so painting a
// whole answer costs time linear in its length (re-rendering the growing
// answer on every delta would cost its square). When the stream ends the
// final attempt lands in Apollo's cache and the turn renders it as Markdown.
//
// The events themselves bypass the cache (fetchPolicy no-cache): writing
// each one would broadcast to every watched query and fragment of the page
// (a cost that grows with the conversation on the screen) before the next
// frame can paint; only the final attempt of COMPLETED and FAILED is
// written, once (web/e2e/budgets.test.js measures arrival to paint).
//
// Resilience: graphql-ws reconnects and resubscribes by itself (the replay
// is merged away); if the subscription fails for good, or a gap is seen, it
// subscribes again with afterSeq = the text it has.
import { useApolloClient } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import type { AttemptEventsSubscription as AttemptEventsResult } from '../gql/graphql';
import { AttemptEventsSubscription, AttemptFields } from '../operations';
import { applyAttemptEvent, initialAttemptState, SeqGapError, type AttemptState } from '../stream/attemptStream';
import { useT } from '../i18n';
import type { SourceFieldsFragment } from '../gql/graphql';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';

type Event = AttemptEventsResult['attemptEvents'];

/** Props: the attempt and its last checkpoint (text and seq). */
export interface StreamingAnswerProps {
  attemptId: string;
  checkpoint: string;
  onStarted: (standaloneQuestion: string | null) => void;
  onSources: (sources: readonly SourceFieldsFragment[]) => void;
}

export function StreamingAnswer({ attemptId, checkpoint, onStarted, onSources }: StreamingAnswerProps) {
  const client = useApolloClient();
  const t = useT();
  const textRef = useRef<HTMLSpanElement>(null);
  const [reconnecting, setReconnecting] = useState(false);
  const [fatal, setFatal] = useState<UiError | null>(null);
  const cbs = useRef({ onStarted, onSources });
  cbs.current = { onStarted, onSources };

  useEffect(() => {
    const node = document.createTextNode(checkpoint);
    const span = textRef.current!;
    span.replaceChildren(node);
    let state: AttemptState<Event> = initialAttemptState<Event>(checkpoint);
    let sub: { unsubscribe(): void } | null = null;
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;

    // again resubscribes from the text we have (afterSeq), after a pause.
    const again = () => {
      if (stopped) return;
      setReconnecting(true);
      clearTimeout(retry);
      retry = setTimeout(subscribe, 1_000);
    };
    const subscribe = () => {
      if (stopped) return;
      sub?.unsubscribe();
      sub = client
        .subscribe({ query: AttemptEventsSubscription, variables: { attemptId, afterSeq: state.seq }, fetchPolicy: 'no-cache' })
        .subscribe({
          next: (res) => {
            if (res.error) {
              // Apollo Client 4 reports a failed subscription here, then
              // completes it: give up on errors that a retry cannot fix.
              const e = toUiError(res.error);
              if (e.kind === 'notFound' || e.kind === 'forbidden' || e.kind === 'signIn') {
                stopped = true;
                setFatal(e);
              }
              return;
            }
            const ev = res.data?.attemptEvents;
            if (!ev) return;
            setReconnecting(false);
            try {
              state = applyAttemptEvent(state, ev);
            } catch (err) {
              if (err instanceof SeqGapError) {
                again();
                return;
              }
              throw err;
            }
            if (state.replaced) node.data = state.text;
            else if (state.appended) node.appendData(state.appended);
            if (ev.kind === 'STARTED') cbs.current.onStarted(state.standaloneQuestion);
            if (ev.kind === 'SOURCES') cbs.current.onSources(state.sources);
            // The final attempt: the turn re-renders from the cache.
            if (ev.attempt) {
              client.cache.writeFragment({
                id: client.cache.identify({ __typename: 'Attempt', id: ev.attempt.id }),
                fragment: AttemptFields,
                fragmentName: 'AttemptFields',
                data: ev.attempt,
              });
            }
          },
          // The stream ended before COMPLETED or FAILED (graphql-ws gave
          // up on the socket, or an error): resume.
          complete: () => {
            if (state.status === 'PENDING') again();
          },
          error: () => again(),
        });
    };
    subscribe();
    return () => {
      stopped = true;
      clearTimeout(retry);
      sub?.unsubscribe();
    };
    // The checkpoint is read once, when the stream starts.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [attemptId, client]);

  return (
    <div className="answer streaming" aria-busy="true">
      <div className="answer-text" aria-live="polite" aria-atomic="false" data-testid="streaming-answer">
        <span ref={textRef} />
        <span className="cursor" aria-hidden="true">▍</span>
      </div>
      {fatal ? <ErrorNote error={fatal} /> : <div className="muted">{reconnecting ? t.reconnecting : t.generating}</div>}
    </div>
  );
}
