// The tenant settings page: tenantSettings in a form grouped by topic;
// Save sends only the changed fields to updateTenantSettings with the
// version the form was loaded at (expectedVersion). The server validates
// the settings as a whole: BAD_USER_INPUT's extensions.field is shown next
// to that field, and CONFLICT (another admin saved meanwhile) offers to
// reload. docs/API.md, "Tenant settings".
import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import type { TenantSettingsFieldsFragment } from '../gql/graphql';
import { TenantSettingsQuery, UpdateTenantSettingsMutation } from './operations';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { useAdminT } from './i18n';
import { buildUpdate, choices, formFieldOf, settingKeys, toForm, type InputProblem, type SettingKey, type SettingsForm } from './settingsForm';

const groups: { id: 'history' | 'budget' | 'retrieval' | 'summary' | 'models' | 'rate' | 'support' | 'retention'; keys: SettingKey[] }[] = [
  { id: 'history', keys: ['historyStrategy', 'historyRounds', 'prioritizedCandidates'] },
  {
    id: 'budget',
    keys: ['promptTokenBudget', 'maxAnswerTokens', 'budgetRatios.system', 'budgetRatios.evidence', 'budgetRatios.history', 'budgetRatios.input', 'budgetRatios.evidenceFloor', 'budgetRatios.evidenceCap'],
  },
  { id: 'retrieval', keys: ['retrievalTopK', 'minEvidenceScore'] },
  { id: 'summary', keys: ['summarizer', 'summaryTriggerRounds', 'summaryMaxChars', 'summaryChunkTokens', 'summaryMaxRegenerations'] },
  { id: 'models', keys: ['defaultModel', 'allowedModels', 'modelContextWindows'] },
  { id: 'rate', keys: ['askRatePerMinute', 'askBurst'] },
  { id: 'support', keys: ['supportApproval', 'supportGrantDefault', 'supportGrantMax'] },
  { id: 'retention', keys: ['conversationIdleTTL', 'conversationMaxAge', 'retentionDays', 'auditRetentionDays', 'feedbackRetentionDays'] },
];

export function SettingsPage() {
  const t = useAdminT();
  const { data, error, refetch } = useQuery(TenantSettingsQuery, { fetchPolicy: 'network-only' });
  const [saved, setSaved] = useState<number | null>(null);
  const s = data?.tenantSettings;
  if (error && !s) return <ErrorNote error={toUiError(error)} onRetry={() => void refetch()} />;
  if (!s) return <p className="muted">…</p>;
  // A new version (saved here, or reloaded) starts a fresh form.
  return (
    <>
      {saved !== null && saved === s.version && (
        <p role="status" data-testid="settings-saved">
          {t.saved(saved)}
        </p>
      )}
      <SettingsEditor key={s.version} settings={s} onReload={() => void refetch()} onSaved={setSaved} />
    </>
  );
}

interface EditorProps {
  settings: TenantSettingsFieldsFragment;
  onReload: () => void;
  onSaved: (version: number) => void;
}

function SettingsEditor({ settings, onReload, onSaved }: EditorProps) {
  const t = useAdminT();
  const stored = toForm(settings);
  const [form, setForm] = useState<SettingsForm>(stored);
  const [problems, setProblems] = useState<Partial<Record<SettingKey, InputProblem>>>({});
  const [serverError, setServerError] = useState<UiError | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [save, { loading }] = useMutation(UpdateTenantSettingsMutation);
  const errorField = serverError?.kind === 'badInput' ? formFieldOf(serverError.field) : null;
  const placed = errorField !== null && (errorField === 'budgetRatios' || (settingKeys as string[]).includes(errorField));

  const submit = async () => {
    setServerError(null);
    setNote(null);
    const { input, problems: p, changed } = buildUpdate(form, stored);
    setProblems(p);
    if (Object.keys(p).length > 0) return;
    if (changed === 0) {
      setNote(t.nothingChanged);
      return;
    }
    try {
      // The refetched query (the same normalized TenantSettings) gives the
      // page its new version, which remounts a fresh form.
      const res = await save({ variables: { input, expectedVersion: settings.version } });
      if (res.data) onSaved(res.data.updateTenantSettings.version);
      onReload();
    } catch (err) {
      setServerError(toUiError(err));
    }
  };

  const fieldNote = (k: string) => {
    const p = problems[k as SettingKey];
    if (p) return <span className="field-error" role="alert" data-testid={`field-error-${k}`}>{t.problems[p]}</span>;
    if (errorField === k && serverError) {
      return (
        <span className="field-error" role="alert" data-testid={`field-error-${k}`}>
          {serverError.message}
        </span>
      );
    }
    return null;
  };

  const input = (k: SettingKey) => {
    const id = `setting-${k}`;
    const common = {
      id,
      name: k,
      value: form[k],
      'aria-invalid': !!problems[k] || errorField === k,
      'data-testid': id,
    };
    const set = (v: string) => setForm((f) => ({ ...f, [k]: v }));
    if (k in choices) {
      const opts = choices[k as keyof typeof choices];
      return (
        <select {...common} onChange={(e) => set(e.target.value)}>
          {opts.includes(form[k]) ? null : <option value={form[k]}>{form[k]}</option>}
          {opts.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
    }
    if (k === 'modelContextWindows') return <textarea {...common} rows={3} onChange={(e) => set(e.target.value)} />;
    return <input {...common} onChange={(e) => set(e.target.value)} />;
  };

  return (
    <section className="settings" aria-label={t.settingsTitle}>
      <h3>{t.settingsTitle}</h3>
      <p className="muted" data-testid="settings-version" data-version={settings.version}>
        {t.settingsVersion(settings.version, new Date(settings.updatedAt).toLocaleString())}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {groups.map((g) => (
          <fieldset key={g.id} className="settings-group">
            <legend>{t.groupsOf[g.id]}</legend>
            {g.id === 'budget' && (
              <p className="muted">
                {t.ratiosSum}
                {errorField === 'budgetRatios' && serverError && (
                  <>
                    {' '}
                    <span className="field-error" role="alert" data-testid="field-error-budgetRatios">
                      {serverError.message}
                    </span>
                  </>
                )}
              </p>
            )}
            {g.keys.map((k) => (
              <div key={k} className="setting">
                <label htmlFor={`setting-${k}`}>{t.fields[k]}</label>
                {input(k)}
                {fieldNote(k)}
              </div>
            ))}
          </fieldset>
        ))}
        {serverError && serverError.kind !== 'badInput' && serverError.kind !== 'conflict' && <ErrorNote error={serverError} onRetry={() => void submit()} />}
        {serverError?.kind === 'conflict' && (
          <div className="error error-conflict" role="alert" data-code="CONFLICT" data-testid="settings-conflict">
            {t.conflictReload.replace('{v}', String(serverError.currentVersion ?? '?'))}{' '}
            <button type="button" onClick={onReload} data-testid="settings-reload">
              {t.reload}
            </button>
          </div>
        )}
        {serverError?.kind === 'badInput' && !placed && <ErrorNote error={serverError} />}
        {note && <p role="status">{note}</p>}
        <button type="submit" className="primary" disabled={loading} data-testid="settings-save">
          {t.save}
        </button>
      </form>
    </section>
  );
}
