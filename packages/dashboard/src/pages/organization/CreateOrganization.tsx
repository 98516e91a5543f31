import { useState } from 'react';
import { api } from '../../api/client';
import type { Organization } from '../../api/organization-types';
import { ErrorBanner } from '../../components/common';
import { useOrganization } from '../../organization/OrganizationProvider';

/** A new organization, with the caller as its owner; the dashboard then acts on it. */
export function CreateOrganization() {
  const { reload, switchTo } = useOrganization();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [open, setOpen] = useState(false);
  return (
    <details className="panel" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary role="button" className="secondary">
        Create an organization
      </summary>
      <p>A team shares one balance: every member gets their own keys and spends the organization's credits. Its balance starts at 0.</p>
      <form
        className="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const org = await api<Organization>('POST', '/api/v1/organizations', { name: name.trim() });
            await reload();
            setName('');
            setOpen(false);
            switchTo(org.id);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <ErrorBanner error={error} />
        <label htmlFor="new-org-name">Organization name</label>
        <div role="group">
          <input id="new-org-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Acme video team" />
          <button type="submit" aria-busy={busy} disabled={busy || name.trim() === ''}>
            Create
          </button>
        </div>
      </form>
    </details>
  );
}
