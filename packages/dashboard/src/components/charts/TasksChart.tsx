import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { shortDay, type TasksPoint } from '../../usage/series';
import { ChartPanel } from './ChartPanel';
import { colourAt, FAILURE_COLOUR } from './palette';

/** Tasks per day (bars: succeeded and failed) with the failure rate as a line on its own axis, in percent. */
export function TasksChart({ data, loading, error }: { data: TasksPoint[] | undefined; loading: boolean; error: unknown }) {
  const total = data?.reduce((a, p) => a + p.tasks, 0) ?? 0;
  const failures = data?.reduce((a, p) => a + p.failures, 0) ?? 0;
  const points = data?.map((p) => ({ ...p, succeeded: p.tasks - p.failures }));
  return (
    <ChartPanel
      id="chart-tasks"
      title="Tasks and failure rate per day"
      unit={data ? `tasks · ${total} in this range, ${failures} failed` : 'tasks'}
      loading={loading && !data}
      error={error}
      empty={total === 0}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col" className="num">Tasks</th>
              <th scope="col" className="num">Failed</th>
              <th scope="col" className="num">Failure rate</th>
            </tr>
          </thead>
          <tbody>
            {data?.filter((p) => p.tasks > 0).map((p) => (
              <tr key={p.day}>
                <td>{p.day}</td>
                <td className="num">{p.tasks}</td>
                <td className="num">{p.failures}</td>
                <td className="num">{p.failure_rate === null ? '—' : `${p.failure_rate} %`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ResponsiveContainer width="100%" height={280}>
        <ComposedChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tickFormatter={shortDay} minTickGap={16} />
          <YAxis yAxisId="tasks" allowDecimals={false} width={48} label={{ value: 'tasks', angle: -90, position: 'insideLeft', offset: 0 }} />
          <YAxis yAxisId="rate" orientation="right" domain={[0, 100]} unit=" %" width={56} />
          <Tooltip labelFormatter={(d) => `${shortDay(String(d))} (UTC)`} formatter={(v, name) => [name === 'Failure rate' ? `${String(v)} %` : String(v), name]} />
          <Legend itemSorter={null} />
          <Bar yAxisId="tasks" dataKey="succeeded" name="Succeeded" stackId="tasks" fill={colourAt(0)} isAnimationActive={false} />
          <Bar yAxisId="tasks" dataKey="failures" name="Failed" stackId="tasks" fill={FAILURE_COLOUR} isAnimationActive={false} />
          <Line yAxisId="rate" dataKey="failure_rate" name="Failure rate" stroke={colourAt(1)} strokeWidth={2} dot={{ r: 3 }} connectNulls isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartPanel>
  );
}
