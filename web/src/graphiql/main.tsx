// GraphiQL served from the binary (/graphiql): React, GraphiQL, Monaco and
// its workers are bundled here, so it works without any CDN (offline, in a
// locked-down network). The console's token, when this tab has one, is
// filled into the headers editor.
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { getToken } from '../auth/token';

const fetcher = createGraphiQLFetcher({
  url: '/graphql',
  subscriptionUrl: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
});
const token = getToken();
const headers = JSON.stringify({ Authorization: `Bearer ${token ?? '<token from ragchat token or the console sign-in>'}` }, null, 2);

createRoot(document.getElementById('graphiql')!).render(
  <StrictMode>
    <GraphiQL fetcher={fetcher} initialHeaders={headers} />
  </StrictMode>,
);
