// A small product front end as a team builds it: the packed package installed from its tarball,
// the client with a refreshable token, NotificationCenter and the optional stylesheet. The browser
// suite (test/browser/react-app.spec.ts) builds it with vite and drives it in Chromium.
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createInboxClient } from 'serverless-notifications/client';
import { InboxProvider, NotificationCenter } from 'serverless-notifications/client/react';
import 'serverless-notifications/client/styles.css';
import './app.css';

const params = new URLSearchParams(location.search);
const api = params.get('api') ?? 'http://127.0.0.1:3000';
const tenantId = params.get('tenant') ?? 'acme';
const userId = params.get('user') ?? 'alice';

// The token function: cached until a minute before it expires; `forceRefresh` after the server refused it.
let cached: { token: string; expiresAt: number } | undefined;
async function token({ forceRefresh }: { forceRefresh: boolean }): Promise<string> {
  if (!forceRefresh && cached && cached.expiresAt - Date.now() > 60_000) return cached.token;
  const response = await fetch(`${api}/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tenantId, userId }) });
  if (!response.ok) throw new Error(`token: HTTP ${response.status}`);
  const answer = (await response.json()) as { token: string; expiresAt: string };
  cached = { token: answer.token, expiresAt: Date.parse(answer.expiresAt) };
  return answer.token;
}

const inbox = createInboxClient({ httpUrl: api, wsUrl: params.get('ws') ?? 'ws://127.0.0.1:3001', token });
void inbox.start();

function App() {
  const [lastAction, setLastAction] = useState<string>();
  return (
    <InboxProvider client={inbox}>
      <header className="app-header">
        <a className="app-logo" href="#home">
          Acme Projects
        </a>
        <nav className="app-nav" aria-label="Main">
          <a href="#projects">Projects</a>
          <a href="#billing">Billing</a>
        </nav>
        <NotificationCenter className="app-notifications" onAction={(actionId, notification) => setLastAction(`${actionId}: ${notification.title}`)} />
      </header>
      <main className="app-main">
        <h1>Dashboard</h1>
        <p>Signed in as {userId}. New mentions and comments arrive in the bell at the top right.</p>
        <p role="status">{lastAction ? `Action ${lastAction}` : ''}</p>
      </main>
    </InboxProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
