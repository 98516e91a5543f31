import { api } from '../api/client';
import type { RouteHealthRow } from '../api/types';
import { ErrorBanner, formatDate, useLoad } from '../components/common';

const STATE_BADGE: Record<RouteHealthRow['state'], { label: string; className: string }> = {
  closed: { label: 'healthy', className: 'badge status-success' },
  half_open: { label: 'probing', className: 'badge status-generating' },
  open: { label: 'open (refused)', className: 'badge status-fail' },
};

/** The operator's view of route health: each route's circuit breaker, shared by every process. */
export function OperatorRoutes() {
  const routes = useLoad(() => api<{ data: RouteHealthRow[] }>('GET', '/dashboard/api/operator/routes'), []);
  return (
    <section aria-labelledby="routes-h">
      <h2 id="routes-h">Route health</h2>
      <ErrorBanner error={routes.error} />
      <button type="button" className="secondary outline small" onClick={() => routes.reload()}>
        Refresh
      </button>
      <div className="table-wrap">
        <table data-testid="operator-routes">
          <caption>Circuit breakers (window: the last 30 s by default)</caption>
          <thead>
            <tr>
              <th scope="col">Route</th>
              <th scope="col">State</th>
              <th scope="col">Probe after</th>
              <th scope="col" className="num">Failures in a row</th>
              <th scope="col" className="num">Attempts / failures</th>
              <th scope="col" className="num">Latency p50</th>
            </tr>
          </thead>
          <tbody>
            {routes.data?.data.map((r) => (
              <tr key={r.route_id}>
                <td>
                  <code>{r.route_id}</code>
                </td>
                <td>
                  <span className={STATE_BADGE[r.state].className}>{STATE_BADGE[r.state].label}</span>
                </td>
                <td>{r.open_until ? formatDate(r.open_until) : '—'}</td>
                <td className="num">{r.consecutive_failures}</td>
                <td className="num">
                  {r.recent_attempts} / {r.recent_failures}
                </td>
                <td className="num">{r.latency_p50_ms === null ? '—' : `≤ ${r.latency_p50_ms} ms`}</td>
              </tr>
            ))}
            {routes.data && routes.data.data.length === 0 && (
              <tr>
                <td colSpan={6}>No route has been called yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
