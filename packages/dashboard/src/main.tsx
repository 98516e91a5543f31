import '@picocss/pico/css/pico.min.css';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, BASENAME } from './App';
import { sessionStore } from './organization/browser-storage';
import { captureInvitationLink } from './organization/invitation-token';

// An invitation link (/dashboard/#/invitations/<token>): its token is kept for this tab before the router starts.
captureInvitationLink(window.location, window.history, sessionStore(), BASENAME);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
