// A recorded attemptEvents stream and a fake client that plays it, for the
// stream and hook tests.
import type { ExecutionResult } from 'graphql';
import type { Sink } from 'graphql-ws';
import type { RagchatClient } from '../src/client';
import { codePointLength } from '../src/merge';
import type { AttemptEvent } from '../src/stream';

// The answer is mixed scripts and an emoji (two UTF-16 units, one code
// point), so lengths in code points and in units differ.
export const chunks = ['Uploads are ', 'limited to 25 MB ', '[1]. Above ', 'the limit the ', 'upload is refused 🚫 ', '(上传被拒绝).'];
export const answer = chunks.join('');

/** The stream as the server sends it from afterSeq: STARTED, SOURCES, the DELTAs past afterSeq, COMPLETED. */
export function recorded(afterSeq: number): AttemptEvent[] {
  const out: AttemptEvent[] = [
    { kind: 'STARTED', seq: afterSeq, text: null, standaloneQuestion: 'How large can an upload be?', requiresHistory: false, sources: null, attempt: null, failureCode: null, failureMessage: null },
    { kind: 'SOURCES', seq: afterSeq, text: null, standaloneQuestion: null, requiresHistory: null, sources: [{ id: 's1', label: 1, rank: 1, score: 0.9, cited: true, available: true, snippet: '25 MB', documentTitle: 'Limits', documentId: 'd1' }], attempt: null, failureCode: null, failureMessage: null },
  ] as AttemptEvent[];
  let seq = 0;
  for (const c of chunks) {
    seq += codePointLength(c);
    if (seq > afterSeq) out.push({ kind: 'DELTA', seq, text: c, standaloneQuestion: null, requiresHistory: null, sources: null, attempt: null, failureCode: null, failureMessage: null } as AttemptEvent);
  }
  out.push({ kind: 'COMPLETED', seq, text: null, standaloneQuestion: null, requiresHistory: null, sources: null, attempt: { id: 'a1', status: 'COMPLETED', answer } as never, failureCode: null, failureMessage: null } as AttemptEvent);
  return out;
}

/** What the fake server does on one subscription. */
export type Step = { event: AttemptEvent } | { close: true } | { complete: true } | { errors: { message: string; extensions: { code: string } }[] };

/** A client whose n-th subscription (0-based) plays script(afterSeq, n). */
export function fakeClient(script: (afterSeq: number, n: number) => Step[], request: (doc: unknown, vars: Record<string, unknown>) => Promise<unknown> = () => Promise.reject(new Error('not used'))) {
  const closed = new Set<(code: number | undefined) => void>();
  const afterSeqs: number[] = [];
  const client = {
    request,
    subscribe(_doc: unknown, vars: { afterSeq: number }, sink: Sink<ExecutionResult<unknown>>) {
      const n = afterSeqs.length;
      afterSeqs.push(vars.afterSeq);
      let live = true;
      const steps = script(vars.afterSeq, n);
      void (async () => {
        for (const step of steps) {
          await new Promise((r) => setTimeout(r, 0));
          if (!live) return;
          if ('event' in step) sink.next({ data: { attemptEvents: step.event } });
          else if ('close' in step) {
            // The socket drops: graphql-ws tells its closed listeners and
            // would resubscribe this subscription with its old variables.
            for (const l of [...closed]) l(1006);
            for (const e of recorded(0)) {
              await new Promise((r) => setTimeout(r, 0));
              if (!live) return;
              sink.next({ data: { attemptEvents: e } });
            }
            return;
          } else if ('complete' in step) return sink.complete();
          else return sink.error(step.errors);
        }
      })();
      return () => {
        live = false;
      };
    },
    onClosed(l: (code: number | undefined) => void) {
      closed.add(l);
      return () => closed.delete(l);
    },
    ws: null as never,
    dispose: async () => {},
  };
  return { client: client as unknown as RagchatClient, afterSeqs };
}


/** The DELTAs of the recorded stream from afterSeq. */
export const deltaEvents = (afterSeq: number) => recorded(afterSeq).filter((e) => e.kind === 'DELTA');
