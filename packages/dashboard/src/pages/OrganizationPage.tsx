import { useState } from 'react';
import { useLocation } from 'react-router';
import { api } from '../api/client';
import type { Organization } from '../api/organization-types';
import { ErrorBanner, formatDate, Notice } from '../components/common';
import { organizationLabel } from '../organization/choice';
import { useOrganization } from '../organization/OrganizationProvider';
import { CreateOrganization } from './organization/CreateOrganization';
import { InvitationsPanel } from './organization/InvitationsPanel';
import { MembersTable } from './organization/MembersTable';

function Rename({ org }: { org: Organization }) {
  const { reload } = useOrganization();
  const [name, setName] = useState(org.name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  return (
    <form
      className="inline-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setDone(false);
        try {
          await api<Organization>('PATCH', `/api/v1/organizations/${org.id}`, { name });
          await reload();
          setDone(true);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <ErrorBanner error={error} />
      {done && <Notice kind="success">Renamed.</Notice>}
      <label htmlFor="org-name">Name</label>
      <div role="group">
        <input id="org-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" aria-busy={busy} disabled={busy || name.trim() === '' || name === org.name}>
          Rename
        </button>
      </div>
    </form>
  );
}

/** The current organization: its name, members (roles, spend limits), invitations; and creating another. */
export function OrganizationPage() {
  const { current, capabilities, error } = useOrganization();
  const joined = (useLocation().state as { joined?: string } | null)?.joined;
  return (
    <>
      <h1>Organization</h1>
      <ErrorBanner error={error} />
      {joined && <Notice kind="success">You joined {joined}.</Notice>}
      {current && (
        <section aria-labelledby="org-h">
          <h2 id="org-h">{organizationLabel(current)}</h2>
          <p className="muted">
            {current.personal ? 'Your personal organization: only you are in it, and it takes no invitations.' : `Created ${formatDate(current.created_at)}.`} Your
            role: <strong>{current.role}</strong>.
          </p>
          {capabilities.rename && <Rename key={current.name} org={current} />}
          <MembersTable org={current} />
          {capabilities.seeInvitations && <InvitationsPanel org={current} inviteRoles={capabilities.inviteRoles} />}
        </section>
      )}
      <CreateOrganization />
    </>
  );
}
