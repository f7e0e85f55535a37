// The model profile form's pure half: the form's text fields from a
// ModelProfile (or a new profile's defaults), the ModelProfileInput to
// send (every field on create, only the changed ones on update), the
// typing problems the browser can see before sending, and which form field
// a server error names (BAD_USER_INPUT extensions.field, such as
// "temperatureMax"). The server validates the profile as a whole
// (docs/API.md, "Model profiles"); this module only parses what was typed.
import type { ModelProfileFieldsFragment, ModelProfileInput } from '../gql/graphql';

export const textKeys = ['name', 'endpoint', 'model'] as const;
export const integerKeys = ['contextWindow', 'maxAnswerTokensMax', 'maxAnswerTokensDefault', 'priceInputPerM', 'priceOutputPerM'] as const;
export const numberKeys = ['temperatureMin', 'temperatureMax', 'temperatureDefault', 'topPMin', 'topPMax', 'topPDefault'] as const;
export const flagKeys = ['enabled', 'isDefault'] as const;

export type FlagKey = (typeof flagKeys)[number];
export type ProfileKey = (typeof textKeys)[number] | (typeof integerKeys)[number] | (typeof numberKeys)[number] | 'allowedGroups';

/** Every text field of the form, in the order the page shows them. */
export const profileKeys: ProfileKey[] = [...textKeys, 'allowedGroups', 'contextWindow', ...numberKeys, 'maxAnswerTokensMax', 'maxAnswerTokensDefault', 'priceInputPerM', 'priceOutputPerM'];

/** The form: every text field as typed, and the two switches. */
export type ProfileForm = Record<ProfileKey, string> & Record<FlagKey, boolean>;

/** Why a typed value cannot be sent. */
export type ProfileProblem = 'integer' | 'number' | 'required';

/** What a new profile starts with: the server's defaults for omitted fields. */
export const newProfile: ModelProfileFieldsFragment = {
  id: '',
  name: '',
  endpoint: '',
  model: '',
  contextWindow: 0,
  temperatureMin: 0,
  temperatureMax: 2,
  temperatureDefault: 0.2,
  topPMin: 0,
  topPMax: 1,
  topPDefault: 1,
  maxAnswerTokensMax: 0,
  maxAnswerTokensDefault: 0,
  priceInputPerM: 0,
  priceOutputPerM: 0,
  enabled: true,
  allowedGroups: [],
  isDefault: false,
};

/** The form's text for a stored profile (or newProfile). */
export function toProfileForm(p: ModelProfileFieldsFragment): ProfileForm {
  const f = {} as ProfileForm;
  for (const k of textKeys) f[k] = p[k];
  for (const k of [...integerKeys, ...numberKeys]) f[k] = String(p[k]);
  f.allowedGroups = p.allowedGroups.join(', ');
  f.enabled = p.enabled;
  f.isDefault = p.isDefault;
  return f;
}

/** Splits a comma- or newline-separated list of groups. */
export function groupList(v: string): string[] {
  return v
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * The input to send and the fields whose text cannot be sent. Without
 * stored (a new profile) every field is sent; with it, only the fields
 * whose text differs, so that an update leaves the rest as they are.
 */
export function buildProfileInput(form: ProfileForm, stored: ProfileForm | null): { input: ModelProfileInput; problems: Partial<Record<ProfileKey, ProfileProblem>>; changed: number } {
  const input: ModelProfileInput = {};
  const problems: Partial<Record<ProfileKey, ProfileProblem>> = {};
  let changed = 0;
  const differs = (k: ProfileKey) => stored === null || form[k].trim() !== stored[k].trim();
  for (const k of textKeys) {
    if (!differs(k)) continue;
    changed++;
    const v = form[k].trim();
    if (v === '') problems[k] = 'required';
    else input[k] = v;
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
  if (stored === null || groupList(form.allowedGroups).join(',') !== groupList(stored.allowedGroups).join(',')) {
    changed++;
    input.allowedGroups = groupList(form.allowedGroups);
  }
  for (const k of flagKeys) {
    if (stored !== null && form[k] === stored[k]) continue;
    changed++;
    input[k] = form[k];
  }
  return { input, problems, changed };
}

/** The form field a BAD_USER_INPUT's extensions.field names, if the form has it. */
export function profileFieldOf(field: string | undefined): ProfileKey | FlagKey | null {
  if (!field) return null;
  const top = field.split(/[.[]/)[0];
  if ((profileKeys as string[]).includes(top) || (flagKeys as readonly string[]).includes(top)) return top as ProfileKey | FlagKey;
  return null;
}
