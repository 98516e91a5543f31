import { lazy, Suspense, useState } from 'react';
import { api, query } from '../api/client';
import type { ApiKey, FailuresView, Paged, ProviderRow, QueueView, UserSummary } from '../api/types';
import { ConfirmButton, ErrorBanner, formatCredits, formatDate, Notice, Pager, useLoad } from '../components/common';
import { OperatorRoutes } from './OperatorRoutes';

function UserDetail({ userId, onChanged }: { userId: string; onChanged: () => void }) {
  const detail = useLoad(() => api<{ user: UserSummary; api_keys: ApiKey[] }>('GET', `/dashboard/api/operator/users/${userId}`), [userId]);
  const [credits, setCredits] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const u = detail.data?.user;
  return (
    <article aria-label={`User ${u?.email ?? userId}`} data-testid="user-detail">
      <header>
        <strong>{u?.email ?? '…'}</strong> {u && <span className="muted">· {u.role} · {formatCredits(u.credits)} credits</span>}
      </header>
      <ErrorBanner error={error ?? detail.error} />
      {done && <Notice kind="success">{done}</Notice>}
      <form
        className="inline-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            const r = await api<{ credits: number }>('POST', `/dashboard/api/operator/users/${userId}/credits`, { credits: Number(credits), ...(note.trim() ? { description: note.trim() } : {}) });
            setDone(`Granted ${formatCredits(r.credits)} credits.`);
            setCredits('');
            setNote('');
            detail.reload();
            onChanged();
          } catch (err) {
            setError(err);
          }
        }}
      >
        <fieldset className="grid-2">
          <legend>Grant credits</legend>
          <label>
            Credits
            <input type="number" min="0.000001" step="any" required value={credits} onChange={(e) => setCredits(e.target.value)} />
          </label>
          <label>
            Note (shown in their transactions)
            <input maxLength={200} value={note} onChange={(e) => setNote(e.target.value)} placeholder="Operator grant" />
          </label>
        </fieldset>
        <button type="submit">Grant</button>
      </form>
      <h4>Active API keys</h4>
      <ul className="plain">
        {detail.data?.api_keys.map((k) => (
          <li key={k.id} className="row">
            <span>
              <strong>{k.name}</strong> <code>{k.key}</code> · last used {formatDate(k.last_used_at)}
            </span>
            <ConfirmButton
              label="Revoke"
              className="danger outline small"
              question={`Revoke ${u?.email ?? 'this user'}'s key “${k.name}”? Their requests with it fail at once.`}
              confirmLabel="Revoke key"
              onConfirm={async () => {
                try {
                  await api('DELETE', `/dashboard/api/operator/users/${userId}/api-keys/${k.id}`);
                  detail.reload();
                  onChanged();
                } catch (err) {
                  setError(err);
                }
              }}
            />
          </li>
        ))}
        {detail.data && detail.data.api_keys.length === 0 && <li>No active keys.</li>}
      </ul>
    </article>
  );
}

function Users() {
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const users = useLoad(() => api<Paged<UserSummary>>('GET', `/dashboard/api/operator/users${query({ search: applied, page, per_page: 20 })}`), [applied, page]);
  return (
    <section aria-labelledby="users-h">
      <h2 id="users-h">Users</h2>
      <form
        aria-label="Search users"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setApplied(search);
        }}
      >
        <label htmlFor="user-search">Search by e-mail or id</label>
        <div role="group">
          <input id="user-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          <button type="submit">Search</button>
        </div>
      </form>
      <ErrorBanner error={users.error} />
      <div className="table-wrap">
        <table data-testid="operator-users">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col" className="num">Credits</th>
              <th scope="col" className="num">Held</th>
              <th scope="col" className="num">Granted</th>
              <th scope="col">Keys (active / revoked)</th>
              <th scope="col" className="num">Tasks</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {users.data?.data.map((u) => (
              <tr key={u.id}>
                <td>
                  <button type="button" className="link" aria-expanded={open === u.id} onClick={() => setOpen(open === u.id ? null : u.id)}>
                    {u.email}
                  </button>
                </td>
                <td>{u.role}</td>
                <td className="num">{formatCredits(u.credits)}</td>
                <td className="num">{formatCredits(u.held_credits)}</td>
                <td className="num">{formatCredits(u.granted_credits)}</td>
                <td>
                  {u.active_keys} / {u.revoked_keys}
                </td>
                <td className="num">{u.tasks}</td>
                <td>{formatDate(u.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {users.data && <Pager page={page} perPage={20} total={users.data.total} onPage={setPage} label="Users" />}
      {open && <UserDetail key={open} userId={open} onChanged={users.reload} />}
    </section>
  );
}

function Providers() {
  const providers = useLoad(() => api<{ data: ProviderRow[] }>('GET', '/dashboard/api/operator/providers'), []);
  return (
    <section aria-labelledby="providers-h">
      <h2 id="providers-h">Providers</h2>
      <ErrorBanner error={providers.error} />
      <div className="table-wrap">
        <table data-testid="operator-providers">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Configured</th>
              <th scope="col">Models (active / all)</th>
              <th scope="col">What to set</th>
            </tr>
          </thead>
          <tbody>
            {providers.data?.data.map((p) => (
              <tr key={p.provider}>
                <td>{p.provider}</td>
                <td>{p.configured ? <span className="badge status-success">yes</span> : <span className="badge status-fail">no</span>}</td>
                <td>
                  {p.active_models} / {p.models}
                </td>
                <td>{p.reason ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Queue() {
  const queue = useLoad(() => api<QueueView>('GET', '/dashboard/api/operator/queue'), []);
  const failures = useLoad(() => api<FailuresView>('GET', '/dashboard/api/operator/failures?hours=24'), []);
  return (
    <section aria-labelledby="queue-h">
      <h2 id="queue-h">Queue</h2>
      <ErrorBanner error={queue.error ?? failures.error} />
      <button type="button" className="secondary outline small" onClick={() => { queue.reload(); failures.reload(); }}>
        Refresh
      </button>
      <div className="grid-2">
        <div className="table-wrap">
          <table data-testid="operator-task-counts">
            <caption>Unfinished tasks</caption>
            <thead>
              <tr>
                <th scope="col">Modality</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">Tasks</th>
              </tr>
            </thead>
            <tbody>
              {queue.data?.tasks.map((t, i) => (
                <tr key={i}>
                  <td>{t.modality}</td>
                  <td>{t.status === 'waiting' ? (t.admitted ? 'waiting (job queued)' : 'waiting (user queue)') : t.status}</td>
                  <td className="num">{t.count}</td>
                </tr>
              ))}
              {queue.data && queue.data.tasks.length === 0 && (
                <tr>
                  <td colSpan={3}>None.</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        <div className="table-wrap">
          <table data-testid="operator-queues">
            <caption>Job queues</caption>
            <thead>
              <tr>
                <th scope="col">Queue</th>
                <th scope="col" className="num">Ready</th>
                <th scope="col" className="num">Deferred</th>
                <th scope="col" className="num">Active</th>
                <th scope="col" className="num">Failed</th>
              </tr>
            </thead>
            <tbody>
              {queue.data?.queues?.map((q) => (
                <tr key={q.queue}>
                  <td>{q.queue}</td>
                  <td className="num">{q.ready}</td>
                  <td className="num">{q.deferred}</td>
                  <td className="num">{q.active}</td>
                  <td className="num">{q.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <h3>Failures in the last 24 hours, by provider</h3>
      {failures.data && failures.data.data.length === 0 && <p>No failed tasks.</p>}
      {failures.data?.data.map((p) => (
        <details key={p.provider} data-testid="operator-failures">
          <summary>
            {p.provider}: {p.failures} failed task{p.failures === 1 ? '' : 's'}
          </summary>
          <ul>
            {p.models.map((m) => (
              <li key={m.model_id}>
                <code>{m.model_id}</code>: {m.failures}, last {formatDate(m.last_at)} — {m.last_message}
              </li>
            ))}
          </ul>
        </details>
      ))}
    </section>
  );
}

/** The usage charts carry the charting library: loaded with the first chart, not with the page. */
const OperatorUsage = lazy(() => import('./OperatorUsage'));

export function OperatorPage() {
  return (
    <>
      <h1>Operator</h1>
      <Users />
      <Suspense fallback={<p aria-busy="true">Loading the usage charts…</p>}>
        <OperatorUsage />
      </Suspense>
      <Providers />
      <OperatorRoutes />
      <Queue />
    </>
  );
}
