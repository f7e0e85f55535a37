// Follows a PENDING attempt with attemptEvents and paints its text as it
// arrives. Each event is merged by seq (src/stream/attemptStream.ts) and
// only the appended code points are added to a DOM text node, so painting a
// whole answer costs time linear in its length (re-rendering the growing
// answer on every delta would cost its square). When the stream ends the
// final attempt lands in Apollo's cache and the turn renders it as Markdown.
//
// Resilience: graphql-ws reconnects and resubscribes by itself (the replay
// is merged away); if the subscription fails for good, or a gap is seen, it
// subscribes again with afterSeq = the text it has.
import { useApolloClient } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import type { AttemptEventsSubscription as AttemptEventsResult } from '../gql/graphql';
import { AttemptEventsSubscription } from '../operations';
import { applyAttemptEvent, initialAttemptState, SeqGapError, type AttemptState } from '../stream/attemptStream';
import { useT } from '../i18n';
import type { SourceFieldsFragment } from '../gql/graphql';

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

    const subscribe = () => {
      if (stopped) return;
      sub = client
        .subscribe({ query: AttemptEventsSubscription, variables: { attemptId, afterSeq: state.seq } })
        .subscribe({
          next: (res) => {
            setReconnecting(false);
            const ev = res.data?.attemptEvents;
            if (!ev) return;
            try {
              state = applyAttemptEvent(state, ev);
            } catch (err) {
              if (err instanceof SeqGapError) {
                sub?.unsubscribe();
                subscribe();
                return;
              }
              throw err;
            }
            if (state.replaced) node.data = state.text;
            else if (state.appended) node.appendData(state.appended);
            if (ev.kind === 'STARTED') cbs.current.onStarted(state.standaloneQuestion);
            if (ev.kind === 'SOURCES') cbs.current.onSources(state.sources);
          },
          error: () => {
            // graphql-ws gave up (or the server refused): try again from
            // what we have, slowly.
            setReconnecting(true);
            retry = setTimeout(subscribe, 2_000);
          },
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
      <div className="muted">{reconnecting ? t.reconnecting : t.generating}</div>
    </div>
  );
}
