// The tags of the open conversation on its header: each in its colour with
// a remove button, and a box that adds one of the viewer's tags by name or
// creates a new one (docs/API.md, "Organising conversations").
import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { AddTagsMutation, CreateTagMutation, RemoveTagsMutation, TagsQuery } from '../organise/operations';
import { useT } from '../i18n';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from './ErrorNote';
import { tagColor, textOn } from '../organise/tagcolor';

interface Tag {
  id: string;
  name: string;
  color?: string | null;
}

export function ConversationTags({ conversationId, tags, readOnly }: { conversationId: string; tags: Tag[]; readOnly: boolean }) {
  const t = useT();
  const all = useQuery(TagsQuery);
  const [createTag] = useMutation(CreateTagMutation);
  const [add] = useMutation(AddTagsMutation);
  const [remove] = useMutation(RemoveTagsMutation);
  const [name, setName] = useState('');
  const [err, setErr] = useState<UiError | null>(null);
  const run = async (f: () => Promise<unknown>) => {
    setErr(null);
    try {
      await f();
    } catch (e) {
      setErr(toUiError(e));
    }
  };
  const submit = () => {
    const n = name.trim();
    if (!n) return;
    void run(async () => {
      let tag = all.data?.tags.find((x) => x.name.toLowerCase() === n.toLowerCase());
      if (!tag) {
        const res = await createTag({ variables: { input: { name: n, color: tagColor(n) } } });
        tag = res.data?.createTag;
        await all.refetch();
      }
      if (tag) await add({ variables: { conversationId, tagIds: [tag.id] } });
      setName('');
    });
  };
  const listId = `tags-${conversationId}`;
  return (
    <div className="tags" aria-label={t.tags} data-testid="tags">
      {tags.map((tag) => (
        <span key={tag.id} className="tag" data-testid="tag" style={tag.color ? { background: tag.color, color: textOn(tag.color) } : undefined}>
          {tag.name}
          {!readOnly && (
            <button type="button" aria-label={t.removeTag(tag.name)} title={t.removeTag(tag.name)} onClick={() => void run(() => remove({ variables: { conversationId, tagIds: [tag.id] } }))}>
              ×
            </button>
          )}
        </span>
      ))}
      {!readOnly && (
        <form
          className="add-tag"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <input
            data-testid="add-tag"
            list={listId}
            value={name}
            maxLength={64}
            placeholder={t.addTag}
            aria-label={t.addTag}
            onChange={(e) => setName(e.target.value)}
          />
          <datalist id={listId}>
            {(all.data?.tags ?? [])
              .filter((x) => !tags.some((y) => y.id === x.id))
              .map((x) => (
                <option key={x.id} value={x.name} />
              ))}
          </datalist>
        </form>
      )}
      {err && <ErrorNote error={err} />}
    </div>
  );
}
