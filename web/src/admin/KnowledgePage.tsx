// Knowledge: knowledge bases and their documents, ingesting a Markdown or
// text file, the ACL editor (visibility, groups, users) and deleting a
// document. Curators (admins and agents) may do all of it.
import { useApolloClient, useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import type { DocumentVisibility } from '../gql/graphql';
import { DeleteDocumentMutation, DocumentAclQuery, IngestDocumentMutation, KnowledgeQuery, SetDocumentAclMutation } from './operations';
import { nodes } from '../relay';
import { toUiError, type UiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';
import { useAdminT } from './i18n';

export function KnowledgePage() {
  const t = useAdminT();
  const { data, error, refetch } = useQuery(KnowledgeQuery, { fetchPolicy: 'network-only' });
  const [editing, setEditing] = useState<string | null>(null);
  const [opError, setOpError] = useState<UiError | null>(null);
  const [del] = useMutation(DeleteDocumentMutation);
  const [ingest] = useMutation(IngestDocumentMutation);
  const run = async (f: () => Promise<unknown>) => {
    setOpError(null);
    try {
      await f();
      await refetch();
    } catch (err) {
      setOpError(toUiError(err));
    }
  };
  return (
    <section>
      {error && <ErrorNote error={toUiError(error)} />}
      {opError && <ErrorNote error={opError} />}
      {nodes(data?.knowledgeBases.edges).map((kb) => (
        <div key={kb.id} className="panel">
          <h3>{kb.name}</h3>
          <p className="muted">{kb.description}</p>
          <label>
            {t.ingest}{' '}
            <input
              type="file"
              accept=".md,.markdown,.txt,text/markdown,text/plain"
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (!file) return;
                void run(async () => {
                  const content = await file.text();
                  await ingest({ variables: { input: { knowledgeBaseId: kb.id, title: file.name.replace(/\.[^.]+$/, ''), content } } });
                });
                e.target.value = '';
              }}
            />
          </label>
          <table className="grid">
            <thead>
              <tr>
                <th>{t.title}</th>
                <th>{t.visibility}</th>
                <th>{t.version}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {nodes(kb.documents.edges).map((d) => (
                <tr key={d.id} data-testid="document-row" data-title={d.title}>
                  <td>{d.title}</td>
                  <td>{d.visibility}</td>
                  <td>{d.version}</td>
                  <td>
                    <button type="button" onClick={() => setEditing(editing === d.id ? null : d.id)} data-testid="edit-acl">
                      {t.acl}
                    </button>{' '}
                    <button
                      type="button"
                      onClick={() => {
                        if (window.confirm(t.confirmDelete(d.title))) void run(() => del({ variables: { id: d.id } }));
                      }}
                    >
                      {t.delete}
                    </button>
                    {editing === d.id && <AclEditor documentId={d.id} onSaved={() => void run(async () => setEditing(null))} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function AclEditor({ documentId, onSaved }: { documentId: string; onSaved: () => void }) {
  const t = useAdminT();
  const client = useApolloClient();
  const { data, error } = useQuery(DocumentAclQuery, { variables: { id: documentId }, fetchPolicy: 'network-only' });
  const [save, { error: saveError, loading }] = useMutation(SetDocumentAclMutation);
  const acl = data?.documentAcl;
  const [form, setForm] = useState<{ visibility: DocumentVisibility; groups: string; users: string } | null>(null);
  const f = form ?? (acl ? { visibility: acl.visibility, groups: acl.groups.join(', '), users: acl.users.join(', ') } : null);
  if (error) return <ErrorNote error={toUiError(error)} />;
  if (!f) return null;
  return (
    <form
      className="acl-editor"
      data-testid="acl-editor"
      onSubmit={async (e) => {
        e.preventDefault();
        await save({ variables: { id: documentId, acl: { visibility: f.visibility, groups: list(f.groups), users: list(f.users) } } });
        await client.refetchQueries({ include: ['Knowledge'] });
        onSaved();
      }}
    >
      <label>
        {t.visibility}{' '}
        <select aria-label={t.visibility} value={f.visibility} onChange={(e) => setForm({ ...f, visibility: e.target.value as DocumentVisibility })}>
          <option value="TENANT">TENANT</option>
          <option value="RESTRICTED">RESTRICTED</option>
        </select>
      </label>
      <label>
        {t.groups} <input aria-label={t.groups} value={f.groups} onChange={(e) => setForm({ ...f, groups: e.target.value })} />
      </label>
      <label>
        {t.users} <input aria-label={t.users} value={f.users} onChange={(e) => setForm({ ...f, users: e.target.value })} />
      </label>
      <button type="submit" disabled={loading} data-testid="save-acl">
        {t.save}
      </button>
      {saveError && <ErrorNote error={toUiError(saveError)} />}
    </form>
  );
}
