// Unit tests of the model profile form: a new profile sends every field,
// an edit only what changed, typing problems are caught before sending,
// and the form field a server error names.
import { expect, test } from 'vitest';
import type { ModelProfileFieldsFragment } from '../gql/graphql';
import { buildProfileInput, groupList, newProfile, profileFieldOf, toProfileForm } from './profileForm';

const stored: ModelProfileFieldsFragment = {
  ...newProfile,
  id: 'p1',
  name: 'Fast',
  endpoint: 'vllm',
  model: 'qwen2.5-7b',
  temperatureMax: 1,
  allowedGroups: ['eng', 'ops'],
  priceInputPerM: 150000,
};

test('a new profile sends every field, defaults included', () => {
  const f = { ...toProfileForm(newProfile), name: ' New ', endpoint: 'offline', model: 'offline', allowedGroups: 'eng,\n ops ' };
  const { input, problems } = buildProfileInput(f, null);
  expect(problems).toEqual({});
  expect(input).toEqual({
    name: 'New', endpoint: 'offline', model: 'offline',
    contextWindow: 0, maxAnswerTokensMax: 0, maxAnswerTokensDefault: 0, priceInputPerM: 0, priceOutputPerM: 0,
    temperatureMin: 0, temperatureMax: 2, temperatureDefault: 0.2, topPMin: 0, topPMax: 1, topPDefault: 1,
    allowedGroups: ['eng', 'ops'], enabled: true, isDefault: false,
  });
});

test('a new profile needs a name, an endpoint and a model', () => {
  const { problems } = buildProfileInput(toProfileForm(newProfile), null);
  expect(problems).toEqual({ name: 'required', endpoint: 'required', model: 'required' });
});

test('an edit sends only what changed', () => {
  const s = toProfileForm(stored);
  expect(buildProfileInput(s, s)).toEqual({ input: {}, problems: {}, changed: 0 });
  const { input, changed } = buildProfileInput({ ...s, temperatureDefault: '0.7', enabled: false, allowedGroups: 'eng, ops' }, s);
  expect(input).toEqual({ temperatureDefault: 0.7, enabled: false });
  expect(changed).toBe(2);
  expect(buildProfileInput({ ...s, allowedGroups: '' }, s).input).toEqual({ allowedGroups: [] });
});

test('typing problems are caught before sending', () => {
  const s = toProfileForm(stored);
  const { input, problems } = buildProfileInput({ ...s, contextWindow: '8k', topPMax: 'x', priceOutputPerM: '1.5' }, s);
  expect(problems).toEqual({ contextWindow: 'integer', topPMax: 'number', priceOutputPerM: 'integer' });
  expect(input).toEqual({});
});

test('the form field a server error names', () => {
  expect(profileFieldOf('temperatureMax')).toBe('temperatureMax');
  expect(profileFieldOf('allowedGroups[2]')).toBe('allowedGroups');
  expect(profileFieldOf('isDefault')).toBe('isDefault');
  expect(profileFieldOf('somethingElse')).toBeNull();
  expect(profileFieldOf(undefined)).toBeNull();
  expect(groupList(' a ,, b\nc ')).toEqual(['a', 'b', 'c']);
});
