import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { sessionStore } from './browser-storage';
import { captureInvitationLink, INVITATION_PATH } from './invitation-token';

/** An invitation link pasted into this tab while the dashboard is open changes only the fragment: catch it. */
export function InvitationLinkWatcher({ basename }: { basename: string }) {
  const navigate = useNavigate();
  useEffect(() => {
    const onHash = () => {
      if (captureInvitationLink(window.location, window.history, sessionStore(), basename)) navigate(INVITATION_PATH, { replace: true });
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [navigate, basename]);
  return null;
}
