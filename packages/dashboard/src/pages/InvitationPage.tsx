import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError } from '../api/client';
import type { InvitationPreview, Organization } from '../api/organization-types';
import { ErrorBanner, formatDate, Notice, useLoad } from '../components/common';
import { forgetInvitation, pendingInvitation, sessionStore } from '../organization/invitation-token';
import { useOrganization } from '../organization/OrganizationProvider';
import { useSignedIn } from '../session';

/** Errors after which the link can never work: the kept token is forgotten. */
const FINAL = new Set(['invitation_not_found', 'invitation_expired', 'already_member']);

/** The page an invitation link leads to (after signing in): what it offers, and Accept. */
export function InvitationPage() {
  const session = useSignedIn();
  const { reload, switchTo } = useOrganization();
  const navigate = useNavigate();
  // Read once: accepting forgets it, and the page must not lose what it shows.
  const [token] = useState(() => pendingInvitation(sessionStore()));
  const preview = useLoad(async () => {
    if (!token) return null;
    try {
      return await api<InvitationPreview>('POST', '/api/v1/invitations/preview', { token });
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
  const expired = p && (p.status === 'expired' || new Date(p.expires_at).getTime() <= Date.now());
  return (
    <section className="narrow" aria-labelledby="invitation-h">
      <h1 id="invitation-h">Invitation</h1>
      <ErrorBanner error={preview.error ?? error} />
      {preview.loading && !p && <p aria-busy="true">Reading the invitation…</p>}
      {p && (
        <article data-testid="invitation">
          <p>
            <strong>{p.invited_by}</strong> invites <strong>{p.email}</strong> to join <strong>{p.organization.name}</strong> as <strong>{p.role}</strong>.
          </p>
          <p className="muted">
            {expired ? 'Expired' : 'Valid until'} {formatDate(p.expires_at)} · works once
          </p>
          {other && (
            <Notice kind="warning">
              You are signed in as <strong>{session.user.email}</strong>: only <strong>{p.email}</strong> can accept it. Sign out and sign in with that address.
            </Notice>
          )}
          <footer className="row">
            <button
              type="button"
              aria-busy={busy}
              disabled={busy || p.status !== 'pending'}
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
