import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError } from '../api/client';
import type { InvitationPreview, Organization } from '../api/organization-types';
import { ErrorBanner, formatDate, Notice, useLoad } from '../components/common';
import { sessionStore } from '../organization/browser-storage';
import { forgetInvitation, pendingInvitation } from '../organization/invitation-token';
import { useOrganization } from '../organization/OrganizationProvider';
import { useSession, useSignedIn } from '../session';

/** Why an invitation that is not pending cannot be accepted. */
const CLOSED: Record<Exclude<InvitationPreview['status'], 'pending'>, string> = {
  accepted: 'This invitation was already used: it works once.',
  revoked: 'This invitation was revoked.',
  expired: 'This invitation has expired: ask for a new one.',
};

/** Errors after which the link can never work: the kept token is forgotten. */
const FINAL = new Set(['invitation_not_found', 'invitation_expired', 'already_member']);

/** The page an invitation link leads to (after signing in): what it offers, and Accept. */
export function InvitationPage() {
  const session = useSignedIn();
  const { signOut } = useSession();
  const { reload, switchTo } = useOrganization();
  const navigate = useNavigate();
  // Read once: accepting forgets it, and the page must not lose what it shows.
  const [token] = useState(() => pendingInvitation(sessionStore()));
  const preview = useLoad(async () => {
    if (!token) return null;
    try {
      const answer = await api<InvitationPreview>('POST', '/api/v1/invitations/preview', { token });
      if (answer.status !== 'pending') forgetInvitation(sessionStore());
      return answer;
    } catch (err) {
      if (err instanceof ApiError && err.type !== null && FINAL.has(err.type)) forgetInvitation(sessionStore());
      throw err;
    }
  }, [token]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  if (!token) {
    return (
      <section className="narrow">
        <h1>Invitation</h1>
        <p>
          No invitation is open in this tab. Open the link from the invitation e-mail again. <Link to="/organization">Your organizations</Link>.
        </p>
      </section>
    );
  }
  const p = preview.data;
  const other = p && p.email.toLowerCase() !== session.user.email.toLowerCase();
  const status = p && p.status === 'pending' && new Date(p.expires_at).getTime() <= Date.now() ? 'expired' : p?.status;
  return (
    <section className="invitation-page" aria-labelledby="invitation-h">
      <h1 id="invitation-h">Invitation</h1>
      <ErrorBanner error={preview.error} />
      {preview.loading && !p && <p aria-busy="true">Reading the invitation…</p>}
      {p && (
        <article data-testid="invitation">
          <p>
            <strong>{p.invited_by}</strong> invites <strong>{p.email}</strong> to join <strong>{p.organization.name}</strong> as <strong>{p.role}</strong>.
          </p>
          <p className="muted">
            {status === 'expired' ? 'Expired' : 'Valid until'} {formatDate(p.expires_at)} · works once
          </p>
          {status && status !== 'pending' && <Notice kind="warning">{CLOSED[status]}</Notice>}
          {status === 'pending' && other && (
            <Notice kind="warning">
              You are signed in as <strong>{session.user.email}</strong>: only <strong>{p.email}</strong> can accept it. Sign out and sign in with that address.
            </Notice>
          )}
          <ErrorBanner error={error} />
          <footer className="row">
            <button
              type="button"
              aria-busy={busy}
              disabled={busy || status !== 'pending'}
              onClick={async () => {
                setBusy(true);
                setError(null);
                try {
                  const org = await api<Organization>('POST', '/api/v1/invitations/accept', { token });
                  forgetInvitation(sessionStore());
                  const orgs = await reload();
                  if (orgs.some((o) => o.id === org.id)) switchTo(org.id);
                  navigate('/organization', { replace: true, state: { joined: org.name } });
                } catch (err) {
                  if (err instanceof ApiError && err.type !== null && FINAL.has(err.type)) forgetInvitation(sessionStore());
                  setError(err);
                } finally {
                  setBusy(false);
                }
              }}
            >
              Accept and join {p.organization.name}
            </button>
            {status === 'pending' && other && (
              <button type="button" className="secondary outline" onClick={() => void signOut()}>
                Sign out, to sign in as {p.email}
              </button>
            )}
            <button
              type="button"
              className="secondary"
              onClick={() => {
                forgetInvitation(sessionStore());
                navigate('/', { replace: true });
              }}
            >
              Not now
            </button>
          </footer>
        </article>
      )}
    </section>
  );
}
