// The admin console, loaded on demand (a separate chunk): the tenant's
// conversations, attempts, feedback, usage and knowledge. Every view reads
// admin-only fields; a member gets FORBIDDEN from the API and the console
// says so.
import { useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import { toUiError } from '../errors';
import { ErrorNote } from '../chat/ErrorNote';

const AdminProbe = graphql(`
  query AdminProbe {
    viewer {
      userId
      isAdmin
    }
    feedbacks(first: 1) {
      totalCount
    }
  }
`);

export default function AdminApp() {
  const { data, error, loading } = useQuery(AdminProbe);
  if (loading) return <p className="muted">…</p>;
  if (error) return <ErrorNote error={toUiError(error)} />;
  return (
    <main className="admin">
      <h2>Admin</h2>
      <p>
        {data?.viewer.userId} · feedback: {data?.feedbacks.totalCount}
      </p>
    </main>
  );
}
