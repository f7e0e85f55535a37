// The tenant settings form's pure half: the form's text fields from
// TenantSettings, the partial UpdateTenantSettingsInput of what changed
// (with the input errors the browser can see before sending), and which
// form field a server error names (BAD_USER_INPUT extensions.field, such
// as "historyRounds", "budgetRatios.history" or "budgetRatios" for the
// sum). The server validates the settings as a whole (docs/API.md,
// "Tenant settings"); this module only parses what was typed.
import type { TenantSettingsFieldsFragment, UpdateTenantSettingsInput } from '../gql/graphql';

/** The form: every setting as the text in its input, by field name. */
export type SettingsForm = Record<SettingKey, string>;

/** Why a typed value cannot be sent. */
export type InputProblem = 'integer' | 'number' | 'window';

export const durationKeys = ['conversationIdleTTL', 'conversationMaxAge', 'supportGrantDefault', 'supportGrantMax'] as const;
export const integerKeys = [
  'retentionDays',
  'auditRetentionDays',
  'feedbackRetentionDays',
  'historyRounds',
  'prioritizedCandidates',
  'promptTokenBudget',
  'maxAnswerTokens',
  'retrievalTopK',
  'summaryTriggerRounds',
  'summaryMaxChars',
  'summaryChunkTokens',
  'summaryMaxRegenerations',
  'askBurst',
] as const;
export const numberKeys = ['minEvidenceScore', 'askRatePerMinute'] as const;
export const ratioKeys = ['system', 'evidence', 'history', 'input', 'evidenceFloor', 'evidenceCap'] as const;
export const choiceKeys = ['historyStrategy', 'summarizer', 'supportApproval'] as const;

/** The values an enumerated setting takes (docs/API.md, "Tenant settings"). */
export const choices: Record<(typeof choiceKeys)[number], string[]> = {
  historyStrategy: ['SLIDING_WINDOW', 'SEMANTIC_SUMMARY', 'HYBRID', 'PRIORITIZED'],
  summarizer: ['DETERMINISTIC', 'LLM'],
  supportApproval: ['OWNER', 'OWNER_OR_ADMIN', 'AUTO'],
};

export type RatioKey = `budgetRatios.${(typeof ratioKeys)[number]}`;
export type SettingKey =
  | (typeof durationKeys)[number]
  | (typeof integerKeys)[number]
  | (typeof numberKeys)[number]
  | (typeof choiceKeys)[number]
  | RatioKey
  | 'defaultModel'
  | 'allowedModels'
  | 'modelContextWindows';

/** Every form field, in the order the page shows them. */
export const settingKeys: SettingKey[] = [
  ...choiceKeys,
  ...durationKeys,
  ...integerKeys,
  ...numberKeys,
  ...ratioKeys.map((k) => `budgetRatios.${k}` as RatioKey),
  'defaultModel',
  'allowedModels',
  'modelContextWindows',
];

/** The form's text for the stored settings. */
export function toForm(s: TenantSettingsFieldsFragment): SettingsForm {
  const f = {} as SettingsForm;
  for (const k of [...durationKeys, ...choiceKeys]) f[k] = s[k];
  for (const k of [...integerKeys, ...numberKeys]) f[k] = String(s[k]);
  for (const k of ratioKeys) f[`budgetRatios.${k}`] = String(s.budgetRatios[k]);
  f.defaultModel = s.defaultModel;
  f.allowedModels = s.allowedModels.join(', ');
  f.modelContextWindows = s.modelContextWindows.map((w) => `${w.model}=${w.contextWindow}`).join('\n');
  return f;
}

const list = (v: string) =>
  v
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean);

/** Parses "model=tokens" lines; null when a line is not of that form. */
export function parseWindows(v: string): { model: string; contextWindow: number }[] | null {
  const out: { model: string; contextWindow: number }[] = [];
  for (const line of v.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const m = line.match(/^(.+?)\s*=\s*(\d+)$/);
    if (!m) return null;
    out.push({ model: m[1].trim(), contextWindow: Number(m[2]) });
  }
  return out;
}

/**
 * The partial update of the fields whose text differs from the stored
 * settings' form, and the fields whose text cannot be sent. Only changed
 * fields are sent, so two admins editing different settings do not undo
 * each other's (the expected version still guards against a lost update).
 */
export function buildUpdate(form: SettingsForm, stored: SettingsForm): { input: UpdateTenantSettingsInput; problems: Partial<Record<SettingKey, InputProblem>>; changed: number } {
  const input: UpdateTenantSettingsInput = {};
  const problems: Partial<Record<SettingKey, InputProblem>> = {};
  let changed = 0;
  const differs = (k: SettingKey) => form[k].trim() !== stored[k].trim();
  for (const k of [...durationKeys, ...choiceKeys]) {
    if (differs(k)) {
      input[k] = form[k].trim();
      changed++;
    }
  }
  for (const k of integerKeys) {
    if (!differs(k)) continue;
    changed++;
    const v = form[k].trim();
    if (!/^-?\d+$/.test(v)) problems[k] = 'integer';
    else input[k] = Number(v);
  }
  for (const k of numberKeys) {
    if (!differs(k)) continue;
    changed++;
    const v = Number(form[k].trim());
    if (form[k].trim() === '' || !Number.isFinite(v)) problems[k] = 'number';
    else input[k] = v;
  }
  for (const r of ratioKeys) {
    const k: RatioKey = `budgetRatios.${r}`;
    if (!differs(k)) continue;
    changed++;
    const v = Number(form[k].trim());
    if (form[k].trim() === '' || !Number.isFinite(v)) problems[k] = 'number';
    else input.budgetRatios = { ...input.budgetRatios, [r]: v };
  }
  if (differs('defaultModel')) {
    changed++;
    input.defaultModel = form.defaultModel.trim();
  }
  if (list(form.allowedModels).join(',') !== list(stored.allowedModels).join(',')) {
    changed++;
    input.allowedModels = list(form.allowedModels);
  }
  if (differs('modelContextWindows')) {
    changed++;
    const w = parseWindows(form.modelContextWindows);
    if (w === null) problems.modelContextWindows = 'window';
    else input.modelContextWindows = w;
  }
  return { input, problems, changed };
}

/**
 * The form field a BAD_USER_INPUT's extensions.field names: the field
 * itself, or the setting an indexed or nested name belongs to
 * ("modelContextWindows[1].contextWindow" → "modelContextWindows"); a
 * field the form does not have (the ratios' sum, "budgetRatios") is
 * returned as it is, for the group it names.
 */
export function formFieldOf(field: string | undefined): string | null {
  if (!field) return null;
  if ((settingKeys as string[]).includes(field)) return field;
  const base = field.replace(/\[\d+\].*$/, '');
  if ((settingKeys as string[]).includes(base)) return base;
  const top = field.split(/[.[]/)[0];
  if ((settingKeys as string[]).includes(top)) return top;
  return top || null;
}
