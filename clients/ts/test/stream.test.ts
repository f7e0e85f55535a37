// streamAttempt against a recorded attemptEvents stream, played by a fake
// client that can drop the socket, replay from afterSeq 0 (what graphql-ws
// does by itself), send a delta twice, skip deltas (a gap), or end the
// stream early. Whatever happens, the text is the answer exactly once and
// every resubscription asks from the code points already applied.
import { describe, expect, test } from 'vitest';
import { codePointLength } from '../src/merge';
import { streamAttempt, type AttemptEvent } from '../src/stream';
import { answer, chunks, fakeClient, recorded, type Step } from './fake';

const ev = (events: AttemptEvent[]): Step[] => events.map((event) => ({ event }));
const deltaAt = (afterSeq: number, i: number) => recorded(afterSeq).filter((e) => e.kind === 'DELTA')[i];

describe('streamAttempt', () => {
  test('a clean stream gives the answer', async () => {
    const { client, afterSeqs } = fakeClient((s) => ev(recorded(s)));
    const painted: string[] = [];
    const s = streamAttempt(client, 'a1', { onState: (st) => painted.push(st.appended) });
    const final = await s.done;
    expect(final.text).toBe(answer);
    expect(painted.join('')).toBe(answer);
    expect(final.status).toBe('COMPLETED');
    expect(final.sources).toHaveLength(1);
    expect(afterSeqs).toEqual([0]);
  });

  test('duplicated and overlapping deltas append nothing twice', async () => {
    const { client } = fakeClient((s) => {
      const all = recorded(s);
      const d = all.filter((e) => e.kind === 'DELTA');
      // Every delta twice, and one that overlaps the text already applied.
      const overlap = { ...d[2], text: chunks[1].slice(-4) + chunks[2] } as AttemptEvent;
      return ev([all[0], all[1], d[0], d[0], d[1], overlap, d[1], d[2], d[2], ...d.slice(3), d[4], all[all.length - 1]]);
    });
    const painted: string[] = [];
    const final = await streamAttempt(client, 'a1', { onState: (st) => painted.push(st.appended) }).done;
    expect(final.text).toBe(answer);
    expect(painted.join('')).toBe(answer);
  });

  test('a gap resubscribes with afterSeq = the text applied', async () => {
    const { client, afterSeqs } = fakeClient((s, n) => {
      const all = recorded(s);
      if (n === 0) return ev([all[0], all[1], deltaAt(s, 0), deltaAt(s, 2), deltaAt(s, 3)]); // delta 1 lost
      return ev(all);
    });
    const final = await streamAttempt(client, 'a1').done;
    expect(final.text).toBe(answer);
    expect(afterSeqs).toEqual([0, codePointLength(chunks[0])]);
  });

  test('after a dropped socket it resumes with afterSeq and ignores the old replay', async () => {
    const { client, afterSeqs } = fakeClient((s, n) => {
      const all = recorded(s);
      if (n === 0) return [...ev([all[0], all[1], deltaAt(s, 0), deltaAt(s, 1), deltaAt(s, 2)]), { close: true }];
      if (n === 1) return [...ev([all[0], deltaAt(s, 0)]), { close: true }]; // drops again
      return ev(all);
    });
    const painted: string[] = [];
    const final = await streamAttempt(client, 'a1', { onState: (st) => painted.push(st.appended) }).done;
    expect(final.text).toBe(answer);
    expect(painted.join('')).toBe(answer);
    const three = codePointLength(chunks.slice(0, 3).join(''));
    const four = codePointLength(chunks.slice(0, 4).join(''));
    expect(afterSeqs).toEqual([0, three, four]);
  });

  test('a stream the server ends before COMPLETED is asked again from where it stopped', async () => {
    const { client, afterSeqs } = fakeClient((s, n) => {
      if (n === 0) return [...ev(recorded(s).slice(0, 4)), { complete: true }];
      return ev(recorded(s));
    });
    const final = await streamAttempt(client, 'a1').done;
    expect(final.text).toBe(answer);
    expect(afterSeqs).toEqual([0, codePointLength(chunks.slice(0, 2).join(''))]);
  });

  test('a checkpoint text is the first afterSeq', async () => {
    const { client, afterSeqs } = fakeClient((s) => ev(recorded(s)));
    const final = await streamAttempt(client, 'a1', { initialText: chunks[0] + chunks[1] }).done;
    expect(final.text).toBe(answer);
    expect(afterSeqs).toEqual([codePointLength(chunks[0] + chunks[1])]);
  });

  test('a GraphQL error ends the stream and is not retried', async () => {
    const { client, afterSeqs } = fakeClient(() => [{ errors: [{ message: 'attempt not found', extensions: { code: 'NOT_FOUND' } }] }]);
    await expect(streamAttempt(client, 'nope').done).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(afterSeqs).toEqual([0]);
  });

  test('a stream that never completes gives up after maxResubscribes', async () => {
    const { client, afterSeqs } = fakeClient(() => [{ complete: true }]);
    await expect(streamAttempt(client, 'a1', { maxResubscribes: 3 }).done).rejects.toThrow(/gave up after 3/);
    expect(afterSeqs).toHaveLength(4);
  });

  test('stop() ends it with the state reached', async () => {
    const { client } = fakeClient(() => []);
    const s = streamAttempt(client, 'a1');
    s.stop();
    await expect(s.done).resolves.toMatchObject({ status: 'PENDING', text: '' });
  });
});
