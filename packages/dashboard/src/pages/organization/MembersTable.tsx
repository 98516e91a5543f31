import { Fragment, useState } from 'react';
import { api } from '../../api/client';
import type { Member, Organization, OrgRole } from '../../api/organization-types';
import { ConfirmButton, ErrorBanner, formatCredits, useLoad } from '../../components/common';
import { formatDay, formatUtc } from '../../dates';
import { useOrganization } from '../../organization/OrganizationProvider';
import { canRemove, canSetLimitOf } from '../../organization/permissions';
import { useSignedIn } from '../../session';
import { MemberLimitForm } from './MemberLimitForm';

const ROLES: readonly OrgRole[] = ['owner', 'admin', 'member'];
const PER: Record<Member['budget_period'], string> = { day: 'per UTC day', week: 'per UTC week', month: 'per UTC month', none: 'in all' };

export const limitWords = (m: Pick<Member, 'spend_limit' | 'budget_period'>): string => (m.spend_limit === null ? 'none' : `${formatCredits(m.spend_limit)} ${PER[m.budget_period]}`);

/** The organization's members: role (owners change it), spend limit (owners; admins for members), removal or leaving. */
export function MembersTable({ org }: { org: Organization }) {
  const me = useSignedIn().user.id;
  const { reload: reloadOrganizations, list: organizations, switchTo } = useOrganization();
  const members = useLoad(() => api<{ data: Member[] }>('GET', `/api/v1/organizations/${org.id}/members`), [org.id]);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const list = members.data?.data ?? [];
  const usage = list.some((m) => m.spent !== undefined);
  const columns = usage ? 8 : 5;
  // The last owner can neither leave nor be removed (the API answers 409 last_owner): not offered.
  const owners = list.filter((m) => m.role === 'owner').length;
  const patchRole = async (m: Member, role: OrgRole) => {
    setError(null);
    try {
      await api<Member>('PATCH', `/api/v1/organizations/${org.id}/members/${m.user_id}`, { role });
      members.reload();
      if (m.user_id === me) await reloadOrganizations();
    } catch (err) {
      setError(err);
      members.reload();
    }
  };
  return (
    <section aria-labelledby="members-h">
      <h3 id="members-h">Members</h3>
      <ErrorBanner error={error ?? members.error} onDismiss={error ? () => setError(null) : undefined} />
      <div className="table-wrap">
        <table aria-labelledby="members-h" data-testid="members" className="members">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Spend limit</th>
              {usage && (
                <>
                  <th scope="col" className="num">Spent</th>
                  <th scope="col">Resets (UTC)</th>
                </>
              )}
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((m) => {
              const self = m.user_id === me;
              const limitable = canSetLimitOf(org.role, m.role);
              const removable = canRemove(org.role, m.role, self, org.personal) && !(m.role === 'owner' && owners <= 1);
              return (
                <Fragment key={m.user_id}>
                  <tr data-testid="member" aria-label={`Member ${m.email}`}>
                    <td>
                      {m.email}
                      {self && <span className="muted"> (you)</span>}
                      <div className="muted small">joined {formatDay(m.joined_at)}</div>
                    </td>
                    <td>
                      {org.role === 'owner' && !org.personal ? (
                        <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => void patchRole(m, e.target.value as OrgRole)}>
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {r}
                            </option>
                          ))}
                        </select>
                      ) : (
                        m.role
                      )}
                    </td>
                    <td data-testid="member-limit" className="nowrap">{limitWords(m)}</td>
                    {usage && (
                      <>
                        <td className="num nowrap" data-testid="member-spent">
                          {m.spent === undefined ? '—' : formatCredits(m.spent)}
                          {m.remaining !== null && m.remaining !== undefined && <span className="muted"> ({formatCredits(m.remaining)} left)</span>}
                        </td>
                        <td className="nowrap">{m.spend_limit === null ? '—' : m.resets_at ? formatUtc(m.resets_at).replace(' UTC', '') : 'never'}</td>
                      </>
                    )}
                    <td>
                      <div className="row actions-cell">
                        {limitable && (
                          <button type="button" className="secondary outline small" onClick={() => setEditing(editing === m.user_id ? null : m.user_id)}>
                            Set limit
                          </button>
                        )}
                        {removable && (
                          <ConfirmButton
                            label={self ? 'Leave' : 'Remove'}
                            className="danger outline small"
                            question={
                              self
                                ? `Leave ${org.name}? Your API keys in it are revoked at once; an owner has to invite you again.`
                                : `Remove ${m.email} from ${org.name}? Their API keys in it are revoked at once; their finished tasks stay the organization's.`
                            }
                            confirmLabel={self ? 'Leave' : 'Remove member'}
                            onConfirm={async () => {
                              setError(null);
                              try {
                                await api('DELETE', `/api/v1/organizations/${org.id}/members/${m.user_id}`);
                                if (self) {
                                  // Gone from it: back to the personal organization, then the list without it.
                                  const personal = organizations?.find((o) => o.personal);
                                  if (personal) switchTo(personal.id);
                                  await reloadOrganizations();
                                } else members.reload();
                              } catch (err) {
                                setError(err);
                              }
                            }}
                          />
                        )}
                      </div>
                    </td>
                  </tr>
                  {editing === m.user_id && (
                    <tr>
                      <td colSpan={columns}>
                        <MemberLimitForm
                          orgId={org.id}
                          member={m}
                          onCancel={() => setEditing(null)}
                          onSaved={() => {
                            setEditing(null);
                            members.reload();
                          }}
                        />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
            {members.data && list.length === 0 && (
              <tr>
                <td colSpan={columns}>No members.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
