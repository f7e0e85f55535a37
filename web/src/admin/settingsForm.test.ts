// Unit tests of the tenant settings form: the form from the stored
// settings, the partial update of what changed with the typing problems
// caught before sending, and the form field a server error names.
import { expect, test } from 'vitest';
import type { TenantSettingsFieldsFragment } from '../gql/graphql';
import { buildUpdate, formFieldOf, parseWindows, toForm } from './settingsForm';

const stored: TenantSettingsFieldsFragment = {
  version: 3,
  updatedAt: '2026-12-01T00:00:00Z',
  conversationIdleTTL: '168h0m0s',
  conversationMaxAge: '2160h0m0s',
  retentionDays: 30,
  auditRetentionDays: 365,
  feedbackRetentionDays: 365,
  historyStrategy: 'HYBRID',
  historyRounds: 6,
  prioritizedCandidates: 40,
  promptTokenBudget: 6000,
  maxAnswerTokens: 800,
  budgetRatios: { system: 0.1, evidence: 0.45, history: 0.3, input: 0.15, evidenceFloor: 0.2, evidenceCap: 0.7 },
  modelContextWindows: [{ model: 'qwen2.5', contextWindow: 8192 }],
  retrievalTopK: 6,
  minEvidenceScore: 0,
  summarizer: 'DETERMINISTIC',
  summaryTriggerRounds: 8,
  summaryMaxChars: 2000,
  summaryChunkTokens: 2000,
  summaryMaxRegenerations: 20,
  defaultModel: '',
  allowedModels: ['gpt-4o-mini', 'gpt-4o'],
  askRatePerMinute: 30,
  askBurst: 10,
  supportApproval: 'OWNER',
  supportGrantDefault: '2h0m0s',
  supportGrantMax: '24h0m0s',
};

test('an unchanged form sends nothing', () => {
  const f = toForm(stored);
  expect(buildUpdate(f, f)).toEqual({ input: {}, problems: {}, changed: 0 });
});

test.each([
  { name: 'a choice', edit: { historyStrategy: 'PRIORITIZED' }, input: { historyStrategy: 'PRIORITIZED' }, problems: {} },
  { name: 'a duration as typed', edit: { conversationIdleTTL: ' 48h ' }, input: { conversationIdleTTL: '48h' }, problems: {} },
  { name: 'an integer', edit: { historyRounds: '12' }, input: { historyRounds: 12 }, problems: {} },
  { name: 'an integer that is not one', edit: { historyRounds: '1.5' }, input: {}, problems: { historyRounds: 'integer' } },
  { name: 'a number', edit: { askRatePerMinute: '2.5' }, input: { askRatePerMinute: 2.5 }, problems: {} },
  { name: 'a number that is not one', edit: { minEvidenceScore: 'high' }, input: {}, problems: { minEvidenceScore: 'number' } },
  {
    name: 'only the ratios changed',
    edit: { 'budgetRatios.history': '0.4', 'budgetRatios.evidence': '0.25' },
    input: { budgetRatios: { evidence: 0.25, history: 0.4 } },
    problems: {},
  },
  { name: 'the allow-list, spacing ignored', edit: { allowedModels: 'gpt-4o-mini,gpt-4o' }, input: {}, problems: {} },
  { name: 'the allow-list cleared', edit: { allowedModels: '' }, input: { allowedModels: [] }, problems: {} },
  {
    name: 'model windows',
    edit: { modelContextWindows: 'qwen2.5 = 16384\nllama3=8192' },
    input: { modelContextWindows: [{ model: 'qwen2.5', contextWindow: 16384 }, { model: 'llama3', contextWindow: 8192 }] },
    problems: {},
  },
  { name: 'a malformed window', edit: { modelContextWindows: 'qwen2.5: big' }, input: {}, problems: { modelContextWindows: 'window' } },
  { name: 'back to the server model', edit: { defaultModel: ' ' }, input: {}, problems: {} },
])('buildUpdate: $name', ({ edit, input, problems }) => {
  const base = toForm(stored);
  const got = buildUpdate({ ...base, ...edit }, base);
  expect(got.input).toEqual(input);
  expect(got.problems).toEqual(problems);
});

test('parseWindows reads model=tokens lines', () => {
  expect(parseWindows('')).toEqual([]);
  expect(parseWindows('a=1\n\n b = 2 ')).toEqual([
    { model: 'a', contextWindow: 1 },
    { model: 'b', contextWindow: 2 },
  ]);
  expect(parseWindows('a')).toBeNull();
});

test.each([
  ['historyRounds', 'historyRounds'],
  ['budgetRatios.history', 'budgetRatios.history'],
  ['budgetRatios', 'budgetRatios'],
  ['modelContextWindows', 'modelContextWindows'],
  ['modelContextWindows[1].contextWindow', 'modelContextWindows'],
  ['defaultModel', 'defaultModel'],
  ['somethingNew', 'somethingNew'],
  [undefined, null],
])('formFieldOf(%s) is %s', (field, want) => {
  expect(formFieldOf(field)).toBe(want);
});
