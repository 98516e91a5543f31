import { useState } from 'react';
import { api } from '../api/client';
import type { Member } from '../api/organization-types';
import type { ApiKey, CreatedKey } from '../api/types';
import { ConfirmButton, CopyButton, ErrorBanner, formatDate, Notice, useLoad } from '../components/common';
import { useOrganization } from '../organization/OrganizationProvider';
import { BudgetFields, budgetBody, BudgetSummary, budgetValuesOf, EMPTY_BUDGET } from './KeyBudgetFields';

const lines = (text: string): string[] => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
const limit = (v: string): number | null => (v.trim() === '' ? null : Number(v));

function LimitFields({ prefix, values, onChange }: { prefix: string; values: { m: string; h: string; d: string }; onChange: (v: { m: string; h: string; d: string }) => void }) {
  return (
    <fieldset className="grid-3">
      <legend>Rate limits (empty = no limit)</legend>
      <label>
        Requests per minute
        <input id={`${prefix}-m`} type="number" min="1" step="1" value={values.m} onChange={(e) => onChange({ ...values, m: e.target.value })} />
      </label>
      <label>
        Requests per hour
        <input id={`${prefix}-h`} type="number" min="1" step="1" value={values.h} onChange={(e) => onChange({ ...values, h: e.target.value })} />
      </label>
      <label>
        Requests per day
        <input id={`${prefix}-d`} type="number" min="1" step="1" value={values.d} onChange={(e) => onChange({ ...values, d: e.target.value })} />
      </label>
    </fieldset>
  );
}

function CreateKey({ onCreated }: { onCreated: (k: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [limits, setLimits] = useState({ m: '', h: '', d: '' });
  const [ips, setIps] = useState('');
  const [budget, setBudget] = useState(EMPTY_BUDGET);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  return (
    <details className="panel" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary role="button" className="secondary">
        Create an API key
      </summary>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const created = await api<CreatedKey>('POST', '/api/v1/api-keys', {
              name,
              rate_limit_per_minute: limit(limits.m),
              rate_limit_per_hour: limit(limits.h),
              rate_limit_per_day: limit(limits.d),
              ip_whitelist: lines(ips),
              ...budgetBody(budget),
            });
            setName('');
            setBudget(EMPTY_BUDGET);
            setLimits({ m: '', h: '', d: '' });
            setIps('');
            setOpen(false);
            onCreated(created);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <ErrorBanner error={error} />
        <label htmlFor="key-name">Name</label>
        <input id="key-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. backend" />
        <LimitFields prefix="new-limit" values={limits} onChange={setLimits} />
        <label htmlFor="key-ips">
          IP whitelist <small>(addresses or CIDR ranges, one per line; empty = any address)</small>
        </label>
        <textarea id="key-ips" rows={2} value={ips} onChange={(e) => setIps(e.target.value)} placeholder="e.g. 203.0.113.7 or 10.0.0.0/8" />
        <BudgetFields prefix="new-budget" values={budget} onChange={setBudget} />
        <button type="submit" aria-busy={busy} disabled={busy}>
          Create key
        </button>
      </form>
    </details>
  );
}

function KeyRow({ k, owner, limitsEditable, onChanged, onError }: { k: ApiKey; owner: string | undefined; limitsEditable: boolean; onChanged: () => void; onError: (e: unknown) => void }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(k.name);
  const [limits, setLimits] = useState({ m: String(k.rate_limit_per_minute ?? ''), h: String(k.rate_limit_per_hour ?? ''), d: String(k.rate_limit_per_day ?? '') });
  const [ips, setIps] = useState(k.ip_whitelist.join('\n'));
  const [budget, setBudget] = useState(budgetValuesOf(k));
  const show = (n: number | null) => (n === null ? '—' : String(n));
  return (
    <article className="key" data-testid="api-key" aria-label={`API key ${k.name}`}>
      <header className="row">
        <strong>{k.name}</strong>
        <code>{k.key}</code>
        {owner && <span className="muted" data-testid="key-owner">of {owner}</span>}
      </header>
      <p className="muted">
        Limits per minute/hour/day: {show(k.rate_limit_per_minute)} / {show(k.rate_limit_per_hour)} / {show(k.rate_limit_per_day)} · IPs:{' '}
        {k.ip_whitelist.length ? k.ip_whitelist.join(', ') : 'any'} · created {formatDate(k.created_at)} · last used {formatDate(k.last_used_at)}
      </p>
      <BudgetSummary k={k} />
      {editing ? (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            try {
              // A member may change only the name and the IP whitelist of their own key.
              const limitFields = limitsEditable
                ? { rate_limit_per_minute: limit(limits.m), rate_limit_per_hour: limit(limits.h), rate_limit_per_day: limit(limits.d), ...budgetBody(budget) }
                : {};
              await api('PUT', `/api/v1/api-keys/${k.id}`, { name, ip_whitelist: lines(ips), ...limitFields });
              setEditing(false);
              onChanged();
            } catch (err) {
              onError(err);
            }
          }}
        >
          <label htmlFor={`rename-${k.id}`}>Name</label>
          <input id={`rename-${k.id}`} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
          {limitsEditable && <LimitFields prefix={`edit-${k.id}`} values={limits} onChange={setLimits} />}
          <label htmlFor={`ips-${k.id}`}>IP whitelist</label>
          <textarea id={`ips-${k.id}`} rows={2} value={ips} onChange={(e) => setIps(e.target.value)} />
          {limitsEditable ? (
            <BudgetFields prefix={`budget-${k.id}`} values={budget} onChange={setBudget} />
          ) : (
            <p className="muted">Rate limits and spend controls are set by an owner or admin of the organization.</p>
          )}
          <div className="row">
            <button type="submit">Save</button>
            <button type="button" className="secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <footer className="row">
          <button type="button" className="secondary outline" onClick={() => setEditing(true)}>
            Edit
          </button>
          <ConfirmButton
            label="Revoke"
            className="danger outline"
            question={`Revoke the key “${k.name}”? Requests with it fail at once, and its tasks that have not started end without a charge.`}
            confirmLabel="Revoke key"
            onConfirm={async () => {
              try {
                await api('DELETE', `/api/v1/api-keys/${k.id}`);
                onChanged();
              } catch (err) {
                onError(err);
              }
            }}
          />
        </footer>
      )}
    </article>
  );
}

export function KeysPage() {
  const keys = useLoad(() => api<{ data: ApiKey[] }>('GET', '/api/v1/api-keys'), []);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { capabilities, current } = useOrganization();
  // In a shared organization, whose key each is: an owner or admin lists everyone's.
  const shared = current !== undefined && !current.personal;
  const members = useLoad(
    () => (shared ? api<{ data: Member[] }>('GET', `/api/v1/organizations/${current.id}/members`) : Promise.resolve({ data: [] as Member[] })),
    [shared, current?.id],
  );
  const ownerOf = (k: ApiKey) => members.data?.data.find((m) => m.user_id === k.member_id)?.email;
  return (
    <>
      <h1>API keys</h1>
      <p>Keys let programs call the API (<code>Authorization: Bearer &lt;key&gt;</code>). The dashboard itself never needs one.</p>
      <ErrorBanner error={error ?? keys.error} onDismiss={() => setError(null)} />
      {created && (
        <Notice kind="success">
          <p>
            Key <strong>{created.name}</strong> created. Copy its secret now: <strong>it is shown only once</strong>.
          </p>
          <div className="secret row">
            <code data-testid="new-key-secret">{created.key}</code>
            <CopyButton text={created.key} label="Copy the key" />
          </div>
          <button type="button" className="secondary outline small" onClick={() => setCreated(null)}>
            I have stored it
          </button>
        </Notice>
      )}
      <CreateKey
        onCreated={(k) => {
          setCreated(k);
          keys.reload();
        }}
      />
      <section aria-label="Your keys">
        {keys.data?.data.map((k) => <KeyRow key={k.id} k={k} owner={shared ? ownerOf(k) : undefined} limitsEditable={capabilities.editKeyLimits} onChanged={keys.reload} onError={setError} />)}
        {keys.data && keys.data.data.length === 0 && <p>No active keys.</p>}
      </section>
    </>
  );
}
