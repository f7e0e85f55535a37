// Model profiles: the tenant's profiles (modelProfiles, disabled ones
// included), a form to create or edit one (endpoint from modelEndpoints,
// bounds, defaults, prices, allowed groups, enabled, tenant default), a
// quick enable/disable switch and delete. The server validates a profile
// as a whole: BAD_USER_INPUT's extensions.field is shown next to that
// field. Admins only; docs/API.md, "Model profiles".
import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import type { ModelProfileFieldsFragment } from '../gql/graphql';
import { CreateModelProfileMutation, DeleteModelProfileMutation, ModelProfilesQuery, UpdateModelProfileMutation } from './operations';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { useAdminT } from './i18n';
import { buildProfileInput, flagKeys, newProfile, profileFieldOf, profileKeys, toProfileForm, type ProfileForm, type ProfileKey, type ProfileProblem } from './profileForm';

export function ModelsPage() {
  const all = useAdminT();
  const t = all.profiles;
  const { data, error, refetch } = useQuery(ModelProfilesQuery, { fetchPolicy: 'network-only' });
  const [editing, setEditing] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [opError, setOpError] = useState<UiError | null>(null);
  const [update] = useMutation(UpdateModelProfileMutation);
  const [del] = useMutation(DeleteModelProfileMutation);
  const profiles = data?.modelProfiles ?? [];
  const endpoints = data?.modelEndpoints ?? [];
  const run = async (f: () => Promise<unknown>, done: string) => {
    setOpError(null);
    setNote(null);
    try {
      await f();
      setNote(done);
      await refetch();
    } catch (err) {
      setOpError(toUiError(err));
    }
  };
  const finished = (msg: string) => {
    setEditing(null);
    setNote(msg);
    void refetch();
  };
  if (error && !data) return <ErrorNote error={toUiError(error)} onRetry={() => void refetch()} />;
  if (!data) return <p className="muted">…</p>;
  const current = editing === 'new' ? newProfile : profiles.find((p) => p.id === editing);
  return (
    <section className="model-profiles" aria-label={t.title}>
      <h3>{t.title}</h3>
      <p className="muted">{t.intro}</p>
      {note && (
        <p role="status" data-testid="profile-note">
          {note}
        </p>
      )}
      {opError && <ErrorNote error={opError} />}
      {profiles.length === 0 ? (
        <p className="muted" data-testid="profiles-none">
          {t.none}
        </p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th>{t.fields.name}</th>
              <th>{t.fields.endpoint}</th>
              <th>{t.fields.model}</th>
              <th>{t.fields.allowedGroups}</th>
              <th />
              <th />
            </tr>
          </thead>
          <tbody>
            {profiles.map((p) => (
              <tr key={p.id} data-testid="profile-row" data-name={p.name} data-enabled={p.enabled}>
                <td>
                  {p.name}
                  {p.isDefault && <span className="muted"> ({t.isDefault})</span>}
                </td>
                <td>{p.endpoint}</td>
                <td>{p.model}</td>
                <td>{p.allowedGroups.length ? p.allowedGroups.join(', ') : <span className="muted">{t.everyone}</span>}</td>
                <td>{p.enabled ? t.enabled : t.disabled}</td>
                <td>
                  <button type="button" data-testid="profile-edit" onClick={() => setEditing(editing === p.id ? null : p.id)}>
                    {t.edit}
                  </button>{' '}
                  <button
                    type="button"
                    data-testid="profile-toggle"
                    onClick={() => void run(() => update({ variables: { id: p.id, input: { enabled: !p.enabled } } }), t.saved(p.name))}
                  >
                    {p.enabled ? t.disable : t.enable}
                  </button>{' '}
                  <button
                    type="button"
                    data-testid="profile-delete"
                    onClick={() => {
                      if (window.confirm(t.confirmDelete(p.name))) void run(() => del({ variables: { id: p.id } }), t.deleted(p.name));
                    }}
                  >
                    {all.delete}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing === null && (
        <button type="button" className="primary" data-testid="profile-add" onClick={() => setEditing('new')}>
          {t.add}
        </button>
      )}
      {current && <ProfileEditor key={editing ?? ''} profile={current} endpoints={endpoints} onDone={finished} onCancel={() => setEditing(null)} />}
    </section>
  );
}

interface EditorProps {
  profile: ModelProfileFieldsFragment;
  endpoints: string[];
  onDone: (note: string) => void;
  onCancel: () => void;
}

function ProfileEditor({ profile, endpoints, onDone, onCancel }: EditorProps) {
  const all = useAdminT();
  const t = all.profiles;
  const isNew = profile.id === '';
  const stored = toProfileForm(profile);
  const [form, setForm] = useState<ProfileForm>(stored);
  const [problems, setProblems] = useState<Partial<Record<ProfileKey, ProfileProblem>>>({});
  const [serverError, setServerError] = useState<UiError | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [create, { loading: creating }] = useMutation(CreateModelProfileMutation);
  const [update, { loading: updating }] = useMutation(UpdateModelProfileMutation);
  const errorField = serverError?.kind === 'badInput' ? profileFieldOf(serverError.field) : null;

  const submit = async () => {
    setServerError(null);
    setNote(null);
    const { input, problems: p, changed } = buildProfileInput(form, isNew ? null : stored);
    setProblems(p);
    if (Object.keys(p).length > 0) return;
    if (changed === 0) {
      setNote(t.nothingChanged);
      return;
    }
    try {
      if (isNew) await create({ variables: { input } });
      else await update({ variables: { id: profile.id, input } });
      onDone(t.saved(form.name.trim()));
    } catch (err) {
      setServerError(toUiError(err));
    }
  };

  const fieldNote = (k: ProfileKey | (typeof flagKeys)[number]) => {
    const p = k in problems ? problems[k as ProfileKey] : undefined;
    if (p) {
      return (
        <span className="field-error" role="alert" data-testid={`profile-error-${k}`}>
          {t.problems[p]}
        </span>
      );
    }
    if (errorField === k && serverError) {
      return (
        <span className="field-error" role="alert" data-testid={`profile-error-${k}`}>
          {serverError.message}
        </span>
      );
    }
    return null;
  };

  const input = (k: ProfileKey) => {
    const id = `profile-${k}`;
    const common = { id, name: k, value: form[k], 'aria-invalid': !!problems[k] || errorField === k, 'data-testid': id };
    const set = (v: string) => setForm((f) => ({ ...f, [k]: v }));
    if (k === 'endpoint') {
      return (
        <select {...common} onChange={(e) => set(e.target.value)}>
          {form.endpoint === '' && <option value="">{t.chooseEndpoint}</option>}
          {form.endpoint !== '' && !endpoints.includes(form.endpoint) && <option value={form.endpoint}>{form.endpoint}</option>}
          {endpoints.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      );
    }
    return <input {...common} onChange={(e) => set(e.target.value)} />;
  };

  return (
    <form
      className="panel profile-editor"
      data-testid="profile-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h4>{isNew ? t.add : profile.name}</h4>
      {profileKeys.map((k) => (
        <div key={k} className="setting">
          <label htmlFor={`profile-${k}`}>{t.fields[k]}</label>
          {input(k)}
          {fieldNote(k)}
        </div>
      ))}
      {flagKeys.map((k) => (
        <div key={k} className="setting">
          <label htmlFor={`profile-${k}`}>{t.fields[k]}</label>
          <input
            type="checkbox"
            id={`profile-${k}`}
            data-testid={`profile-${k}`}
            checked={form[k]}
            aria-invalid={errorField === k}
            onChange={(e) => setForm((f) => ({ ...f, [k]: e.target.checked }))}
          />
          {fieldNote(k)}
        </div>
      ))}
      {serverError && errorField === null && <ErrorNote error={serverError} />}
      {note && <p role="status">{note}</p>}
      <button type="submit" className="primary" disabled={creating || updating} data-testid="profile-save">
        {isNew ? t.create : all.save}
      </button>{' '}
      <button type="button" onClick={onCancel} data-testid="profile-cancel">
        {t.cancel}
      </button>
    </form>
  );
}
