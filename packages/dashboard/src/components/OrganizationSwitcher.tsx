import { organizationLabel } from '../organization/choice';
import { useOrganization } from '../organization/OrganizationProvider';

/** The header's organization picker: every /api/v1 request of the dashboard acts on the chosen one. */
export function OrganizationSwitcher() {
  const { list, current, error, switchTo } = useOrganization();
  if (error) return <p className="org-switcher muted">Organizations unavailable: acting on your personal account.</p>;
  if (!list || !current) return null;
  return (
    <div className="org-switcher">
      <label htmlFor="org-switcher">Organization</label>
      <select id="org-switcher" value={current.id} onChange={(e) => switchTo(e.target.value)}>
        {list.map((o) => (
          <option key={o.id} value={o.id}>
            {organizationLabel(o)}
            {o.personal ? '' : ` (${o.role})`}
          </option>
        ))}
      </select>
      <span className="muted" data-testid="org-role">
        Your role: <strong>{current.role}</strong>
      </span>
    </div>
  );
}
