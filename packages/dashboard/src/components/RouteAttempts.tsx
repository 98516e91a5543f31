import type { RouteAttempt } from '../api/types';
import { formatDate } from './common';

/** A task's attempt log (routes tried, how each ended), as GET /run/tasks shows it in `extensions.attempts`. */
export function RouteAttempts({ attempts }: { attempts: RouteAttempt[] }) {
  return (
    <div className="table-wrap" data-testid="route-attempts">
      <table aria-label="Attempts">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Route</th>
            <th scope="col">Outcome</th>
            <th scope="col">Started</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a, i) => (
            <tr key={i}>
              <td>{i + 1}</td>
              <td>
                <code>{a.route}</code>
              </td>
              <td>
                {a.outcome}
                {a.error_class ? ` (${a.error_class}${a.upstream_status !== null ? `, HTTP ${a.upstream_status}` : ''})` : ''}
              </td>
              <td>{formatDate(a.started_at)}</td>
              <td>{Math.max(0, Date.parse(a.ended_at) - Date.parse(a.started_at))} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
