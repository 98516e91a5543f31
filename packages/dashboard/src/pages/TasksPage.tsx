import { useState } from 'react';
import { api, query } from '../api/client';
import type { CallbackAttempt, Model, Paged, TaskListItem, TaskStatus } from '../api/types';
import { ErrorBanner, formatCredits, formatDate, Pager, StatusBadge, useInterval, useLoad } from '../components/common';
import { ResultView } from '../components/ResultView';
import { RouteAttempts } from '../components/RouteAttempts';

const STATUSES: TaskStatus[] = ['waiting', 'generating', 'success', 'fail'];

function Callbacks({ taskId }: { taskId: string }) {
  const attempts = useLoad(() => api<{ data: CallbackAttempt[] }>('GET', `/api/v1/run/tasks/${taskId}/callbacks`), [taskId]);
  return (
    <div data-testid="callback-attempts">
      <ErrorBanner error={attempts.error} />
      {attempts.data && attempts.data.data.length === 0 && <p className="muted">No delivery attempt yet (callbacks are sent when the task ends).</p>}
      {attempts.data && attempts.data.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">When</th>
                <th scope="col">Answer</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {attempts.data.data.map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>{formatDate(a.created_at)}</td>
                  <td>{a.delivered ? `delivered (HTTP ${a.status_code ?? '?'})` : (a.error ?? `HTTP ${a.status_code ?? '?'}`)}</td>
                  <td>{a.duration_ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function TaskCard({ t, onChanged, onError }: { t: TaskListItem; onChanged: () => void; onError: (e: unknown) => void }) {
  const [showCallbacks, setShowCallbacks] = useState(false);
  const [showAttempts, setShowAttempts] = useState(false);
  const attempts = t.extensions?.attempts ?? [];
  const unfinished = t.status === 'waiting' || t.status === 'generating';
  const cost =
    t.status === 'success' ? `${formatCredits(t.charged_credits ?? 0)} credits charged` : unfinished ? `${formatCredits(t.held_credits)} credits held` : 'nothing charged';
  return (
    <article className="task" data-testid="task" data-status={t.status} aria-label={`Task ${t.model_id} ${t.status}`}>
      <header className="row">
        <span>
          <strong>{t.model_id}</strong> <StatusBadge status={t.status} />
          {t.status === 'generating' && t.progress !== undefined && <progress value={t.progress} max={1} aria-label="Progress" />}
        </span>
        <span className="muted" data-testid="task-cost">{cost}</span>
      </header>
      <p className="muted">
        {formatDate(t.created_at)} · <code>{t.task_id}</code>
        {t.finished_at ? ` · ended ${formatDate(t.finished_at)}` : ''}
        {t.submitted_with_api_key ? ' · via API key' : ' · from the dashboard'}
        {t.route && t.route.id !== t.model_id ? <> · served by <code>{t.route.id}</code></> : ''}
      </p>
      {t.prompt && <blockquote className="prompt">{t.prompt}</blockquote>}
      {t.status === 'fail' && <div className="notice error">{t.error_message}</div>}
      {t.warnings.length > 0 && (
        <ul className="warnings" aria-label="What the provider adjusted">
          {t.warnings.map((w, i) => (
            <li key={i}>
              <code>{w.param}</code>: {w.message}
            </li>
          ))}
        </ul>
      )}
      {t.status === 'success' && <ResultView urls={t.result_urls} modality={t.modality} label={`Result of ${t.model_id}`} />}
      {attempts.length > 0 && (
        <div>
          <button type="button" className="secondary outline small" aria-expanded={showAttempts} onClick={() => setShowAttempts((s) => !s)}>
            {showAttempts ? 'Hide' : 'Show'} attempts ({attempts.length})
          </button>
          {showAttempts && <RouteAttempts attempts={attempts} />}
        </div>
      )}
      {(t.callback_url || unfinished) && (
      <footer>
      <div className="row">
        {t.callback_url && (
          <button type="button" className="secondary outline small" aria-expanded={showCallbacks} onClick={() => setShowCallbacks((s) => !s)}>
            {showCallbacks ? 'Hide' : 'Show'} callback attempts
          </button>
        )}
        {unfinished && (
          <button
            type="button"
            className="danger outline small"
            onClick={async () => {
              try {
                await api('POST', `/api/v1/run/tasks/${t.task_id}/cancel`);
                onChanged();
              } catch (err) {
                onError(err);
              }
            }}
          >
            Cancel
          </button>
        )}
      </div>
      {showCallbacks && t.callback_url && (
        <>
          <p className="muted">Callback URL: {t.callback_url}</p>
          <Callbacks taskId={t.task_id} />
        </>
      )}
      </footer>
      )}
    </article>
  );
}

export function TasksPage() {
  const [statuses, setStatuses] = useState<TaskStatus[]>([]);
  const [model, setModel] = useState('');
  const [modality, setModality] = useState('');
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>(null);
  const perPage = 10;
  const models = useLoad(() => api<Paged<Model>>('GET', '/api/v1/models?per_page=100'), []);
  const tasks = useLoad(
    () => api<Paged<TaskListItem>>('GET', `/api/v1/run/tasks${query({ page, per_page: perPage, status: statuses, model, modality })}`),
    [page, statuses.join(','), model, modality],
  );
  const anyUnfinished = (tasks.data?.data ?? []).some((t) => t.status === 'waiting' || t.status === 'generating');
  useInterval(tasks.reload, 2000, anyUnfinished);
  return (
    <>
      <h1>Tasks</h1>
      <form className="filters" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>Status</legend>
          {STATUSES.map((s) => (
            <label key={s}>
              <input
                type="checkbox"
                checked={statuses.includes(s)}
                onChange={(e) => {
                  setPage(1);
                  setStatuses((cur) => (e.target.checked ? [...cur, s] : cur.filter((x) => x !== s)));
                }}
              />
              {s}
            </label>
          ))}
        </fieldset>
        <div className="grid-2">
          <label>
            Model
            <select
              value={model}
              onChange={(e) => {
                setPage(1);
                setModel(e.target.value);
              }}
            >
              <option value="">any model</option>
              {models.data?.data.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </select>
          </label>
          <label>
            Modality
            <select
              value={modality}
              onChange={(e) => {
                setPage(1);
                setModality(e.target.value);
              }}
            >
              <option value="">any</option>
              <option value="image">image</option>
              <option value="video">video</option>
              <option value="chat">chat</option>
            </select>
          </label>
        </div>
      </form>
      <ErrorBanner error={error ?? tasks.error} onDismiss={() => setError(null)} />
      <section aria-label="Your tasks" aria-busy={tasks.loading && !tasks.data}>
        {tasks.data?.data.map((t) => <TaskCard key={t.task_id} t={t} onChanged={tasks.reload} onError={setError} />)}
        {tasks.data && tasks.data.data.length === 0 && <p>No tasks{statuses.length || model || modality ? ' match these filters' : ' yet: try the playground'}.</p>}
      </section>
      {tasks.data && <Pager page={page} perPage={perPage} total={tasks.data.total} onPage={setPage} label="Tasks" />}
    </>
  );
}
