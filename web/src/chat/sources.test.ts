// Unit tests of the sources split: cited chunks first in citation order,
// uncited ones folded away by rank, and everything shown while streaming.
import { expect, test } from 'vitest';
import { citedLabels, splitSources } from './sources';

const s = (label: string, rank: number, cited = false) => ({ label, rank, cited });

test('citedLabels keeps the order of first citation, once each', () => {
  expect(citedLabels('A [C2] b [C1], again [C2] and [C10].')).toEqual(['C2', 'C1', 'C10']);
  expect(citedLabels('no citations')).toEqual([]);
});

test.each([
  {
    name: 'cited by label first, uncited by rank',
    sources: [s('C1', 1), s('C2', 2), s('C3', 3)],
    answer: 'See [C3] and [C1].',
    known: true,
    cited: ['C3', 'C1'],
    more: ['C2'],
  },
  {
    name: 'the server marks a source cited',
    sources: [s('C2', 2), s('C1', 1, true)],
    answer: 'no labels',
    known: true,
    cited: ['C1'],
    more: ['C2'],
  },
  {
    name: 'nothing cited: all under more',
    sources: [s('C2', 2), s('C1', 1)],
    answer: 'I do not know.',
    known: true,
    cited: [],
    more: ['C1', 'C2'],
  },
  {
    name: 'while streaming every source is shown by rank',
    sources: [s('C2', 2), s('C1', 1)],
    answer: '',
    known: false,
    cited: ['C1', 'C2'],
    more: [],
  },
])('splitSources: $name', ({ sources, answer, known, cited, more }) => {
  const got = splitSources(sources, answer, known);
  expect(got.cited.map((x) => x.label)).toEqual(cited);
  expect(got.more.map((x) => x.label)).toEqual(more);
});
