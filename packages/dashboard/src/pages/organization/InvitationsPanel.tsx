import { useState } from 'react';
import { api } from '../../api/client';
import type { Invitation, Organization, OrgRole } from '../../api/organization-types';
import { ConfirmButton, ErrorBanner, formatDate, Notice, StatusBadge, useLoad } from '../../components/common';

const expiredNow = (i: Invitation): boolean => i.status === 'expired' || new Date(i.expires_at).getTime() <= Date.now();

/** Invite by e-mail (owners: any role; admins: members), and the pending invitations with their expiry. */
export function InvitationsPanel({ org, inviteRoles }: { org: Organization; inviteRoles: readonly OrgRole[] }) {
  const invitations = useLoad(() => api<{ data: Invitation[] }>('GET', `/api/v1/organizations/${org.id}/invitations`), [org.id]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState<string | null>(null);
  return (
    <section aria-labelledby="invitations-h">
      <h3 id="invitations-h">Invitations</h3>
      <ErrorBanner error={error ?? invitations.error} onDismiss={error ? () => setError(null) : undefined} />
      {sent && <Notice kind="success">Invitation sent to {sent}. The link in it works once, for 7 days.</Notice>}
      {inviteRoles.length > 0 && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            setSent(null);
            try {
              const created = await api<Invitation>('POST', `/api/v1/organizations/${org.id}/invitations`, { email: email.trim(), role });
              setSent(created.email);
              setEmail('');
              invitations.reload();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <div className="grid-3 invite-grid">
            <div>
              <label htmlFor="invite-email">E-mail address</label>
              <input id="invite-email" type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@example.com" />
            </div>
            <div>
              <label htmlFor="invite-role">Role</label>
              <select id="invite-role" value={role} disabled={inviteRoles.length === 1} onChange={(e) => setRole(e.target.value as OrgRole)}>
                {inviteRoles.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <div className="form-buttons">
              <button type="submit" aria-busy={busy} disabled={busy}>
                Send invitation
              </button>
            </div>
          </div>
        </form>
      )}
      <div className="table-wrap">
        <table aria-labelledby="invitations-h" data-testid="invitations">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Invited by</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {invitations.data?.data.map((i) => (
              <tr key={i.id} data-testid="invitation-row">
                <td>{i.email}</td>
                <td>{i.role}</td>
                <td>{i.invited_by}</td>
                <td>
                  <StatusBadge status={expiredNow(i) ? 'expired' : i.status} />
                </td>
                <td>{formatDate(i.expires_at)}</td>
                <td>
                  <ConfirmButton
                    label="Revoke"
                    className="danger outline small"
                    question={`Revoke the invitation of ${i.email}? Its link stops working at once.`}
                    confirmLabel="Revoke invitation"
                    onConfirm={async () => {
                      setError(null);
                      try {
                        await api('DELETE', `/api/v1/organizations/${org.id}/invitations/${i.id}`);
                        invitations.reload();
                      } catch (err) {
                        setError(err);
                      }
                    }}
                  />
                </td>
              </tr>
            ))}
            {invitations.data && invitations.data.data.length === 0 && (
              <tr>
                <td colSpan={6}>No pending invitations.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
