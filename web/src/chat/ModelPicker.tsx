// The model picker above the question box: the profiles the viewer may use
// (availableModels), or nothing when the tenant offers no choice. The
// choice is kept per conversation in localStorage and sent with each
// question, edit, regenerate and reask as modelProfileId ("" sends none:
// the conversation's or the tenant's default answers; docs/API.md, "Model
// profiles"). A kept choice the viewer may no longer use (an admin
// disabled, deleted or closed it) falls back to "".
import { useQuery } from '@apollo/client/react';
import { useEffect, useState } from 'react';
import { useT } from '../i18n';
import { AvailableModelsQuery } from '../operations';

const key = (conversationId: string) => `ragchat.model.${conversationId}`;

/** The chosen profile of a conversation, kept across reloads. */
export function useModelChoice(conversationId: string): [string, (id: string) => void] {
  const [chosen, setChosen] = useState<{ conv: string; id: string }>(() => ({ conv: conversationId, id: localStorage.getItem(key(conversationId)) ?? '' }));
  const id = chosen.conv === conversationId ? chosen.id : (localStorage.getItem(key(conversationId)) ?? '');
  const set = (next: string) => {
    if (next) localStorage.setItem(key(conversationId), next);
    else localStorage.removeItem(key(conversationId));
    setChosen({ conv: conversationId, id: next });
  };
  return [id, set];
}

export function ModelPicker({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const t = useT();
  const { data } = useQuery(AvailableModelsQuery, { fetchPolicy: 'cache-and-network' });
  const models = data?.availableModels ?? [];
  const gone = !!data && value !== '' && !models.some((m) => m.id === value);
  useEffect(() => {
    if (gone) onChange('');
  }, [gone, onChange]);
  if (models.length === 0) return null;
  return (
    <label className="model-picker">
      {t.model}{' '}
      <select data-testid="model-picker" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t.modelDefault}</option>
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </select>
    </label>
  );
}
