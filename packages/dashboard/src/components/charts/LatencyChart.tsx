import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LatencyPoint } from '../../usage/series';
import { ChartPanel } from './ChartPanel';
import { colourAt, formatMs } from './palette';

/** Latency from submission to the end of the task, p50 and p95 per model: horizontal bars, so long model ids stay readable. */
export function LatencyChart({ data, loading, error }: { data: LatencyPoint[] | undefined; loading: boolean; error: unknown }) {
  const rows = data ?? [];
  return (
    <ChartPanel
      id="chart-latency"
      title="Latency per model"
      unit="seconds from submission to the result, median (p50) and 95th percentile (p95)"
      loading={loading && !data}
      error={error}
      empty={rows.length === 0}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col" className="num">Tasks</th>
              <th scope="col" className="num">p50</th>
              <th scope="col" className="num">p95</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.model}>
                <td>{p.model}</td>
                <td className="num">{p.tasks}</td>
                <td className="num">{formatMs(p.p50)}</td>
                <td className="num">{formatMs(p.p95)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ResponsiveContainer width="100%" height={Math.max(160, 56 * rows.length + 80)}>
        <BarChart data={rows} layout="vertical" margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" tickFormatter={formatMs} />
          <YAxis type="category" dataKey="model" width={170} />
          <Tooltip formatter={(v, name) => [formatMs(Number(v)), name]} />
          <Legend itemSorter={null} />
          <Bar dataKey="p50" name="p50 (median)" fill={colourAt(0)} isAnimationActive={false} />
          <Bar dataKey="p95" name="p95" fill={colourAt(1)} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartPanel>
  );
}
