import { useState } from 'react';
import { api } from '../../api/client';
import type { Member } from '../../api/organization-types';
import type { BudgetPeriod } from '../../api/types';
import { ErrorBanner } from '../../components/common';

/** A member's spend limit: credits per UTC period (empty = no limit). */
export function MemberLimitForm({ orgId, member, onSaved, onCancel }: { orgId: string; member: Member; onSaved: () => void; onCancel: () => void }) {
  const [limit, setLimit] = useState(member.spend_limit === null ? '' : String(member.spend_limit));
  const [period, setPeriod] = useState<BudgetPeriod>(member.spend_limit === null && member.budget_period === 'none' ? 'month' : member.budget_period);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const id = `limit-${member.user_id}`;
  return (
    <form
      aria-label={`Spend limit of ${member.email}`}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await api<Member>('PATCH', `/api/v1/organizations/${orgId}/members/${member.user_id}`, {
            spend_limit: limit.trim() === '' ? null : Number(limit),
            budget_period: period,
          });
          onSaved();
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <ErrorBanner error={error} />
      <div className="grid-3">
        <div>
          <label htmlFor={`${id}-credits`}>Spend limit (credits)</label>
          <input id={`${id}-credits`} type="number" min="0.000001" step="any" value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="no limit" />
        </div>
        <div>
          <label htmlFor={`${id}-period`}>Resets every</label>
          <select id={`${id}-period`} value={period} onChange={(e) => setPeriod(e.target.value as BudgetPeriod)}>
            <option value="day">day (00:00 UTC)</option>
            <option value="week">week (Monday 00:00 UTC)</option>
            <option value="month">month (the 1st, 00:00 UTC)</option>
            <option value="none">never</option>
          </select>
        </div>
        <div className="row form-buttons">
          <button type="submit" aria-busy={busy} disabled={busy}>
            Save limit
          </button>
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </form>
  );
}
