// The read-only page of a share link (/s/<token>): the conversation's
// title, questions, answers and each answer's sources as the server
// re-authorised them for this reader. It needs no sign-in (PUBLIC links);
// a signed-in reader's token is sent when there is one. Unavailable
// sources show only their label and "source unavailable"; an answer the
// server withheld from this reader (it draws on sources the reader may not
// read, docs/API.md "Share links") shows only that it was withheld.
import { useEffect, useState } from 'react';
import { print } from 'graphql';
import { graphql } from '../gql';
import type { SharedConversationQuery } from '../gql/graphql';
import { getToken } from '../auth/token';
import { useT } from '../i18n';
import { AnswerMarkdown } from '../chat/Markdown';

export const SharedConversationDoc = graphql(`
  query SharedConversation($token: String!) {
    sharedConversation(token: $token) {
      title
      messages {
        role
        content
        createdAt
        sources {
          label
          cited
          available
          title
          snippet
        }
        withheld
        withheldReason
      }
    }
  }
`);

type Shared = SharedConversationQuery['sharedConversation'];

/** Fetches the share once, with the reader's token if signed in. */
async function fetchShare(token: string): Promise<Shared | null> {
  const t = getToken();
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(t ? { Authorization: `Bearer ${t}` } : {}) },
    body: JSON.stringify({ query: print(SharedConversationDoc), variables: { token } }),
  });
  const body = (await res.json()) as { data?: SharedConversationQuery | null };
  return body.data?.sharedConversation ?? null;
}

export default function SharePage({ token }: { token: string }) {
  const t = useT();
  const [state, setState] = useState<{ share: Shared | null; done: boolean }>({ share: null, done: false });
  useEffect(() => {
    let live = true;
    fetchShare(token)
      .catch(() => null)
      .then((share) => live && setState({ share, done: true }));
    return () => {
      live = false;
    };
  }, [token]);
  if (!state.done) return <p className="muted">…</p>;
  const share = state.share;
  if (!share) {
    return (
      <main className="share" data-testid="share">
        <p role="alert">{t.shareNotFound}</p>
      </main>
    );
  }
  return (
    <main className="share" data-testid="share">
      <p className="muted">{t.sharedConversation}</p>
      <h1>{share.title}</h1>
      {share.messages.map((m, i) => (
        <section
          key={i}
          className={m.role === 'USER' ? 'turn question' : 'turn answer'}
          data-role={m.role}
          data-withheld={m.withheld ? 'true' : undefined}
        >
          {m.role === 'USER' ? (
            <p className="question-text">{m.content}</p>
          ) : m.withheld ? (
            <p className="muted withheld">{t.answerWithheld}</p>
          ) : (
            <AnswerMarkdown text={m.content} sourceAnchor={(label) => `share-${i}-${label}`} />
          )}
          {m.sources.length > 0 && (
            <ol className="sources" aria-label={t.sharedSources}>
              {m.sources.map((s) => (
                <li key={s.label} id={`share-${i}-${s.label}`} data-available={s.available ? 'true' : 'false'}>
                  <strong>[{s.label}]</strong>{' '}
                  {s.available ? (
                    <>
                      <span className="source-title">{s.title}</span>
                      <blockquote>{s.snippet}</blockquote>
                    </>
                  ) : (
                    <span className="muted">{t.sourceUnavailable}</span>
                  )}
                </li>
              ))}
            </ol>
          )}
        </section>
      ))}
    </main>
  );
}
