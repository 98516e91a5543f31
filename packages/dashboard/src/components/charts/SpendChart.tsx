import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { shortDay, type StackedSeries } from '../../usage/series';
import { formatCredits } from '../common';
import { ChartPanel } from './ChartPanel';
import { colourAt, formatCreditsShort, OTHER_COLOUR } from './palette';

/** Spend per day, one stacked bar per day, one colour per model (or provider, or user: `dimension`). */
export function SpendChart({
  data,
  loading,
  error,
  id = 'chart-spend',
  dimension = 'model',
}: {
  data: StackedSeries | undefined;
  loading: boolean;
  error: unknown;
  id?: string;
  dimension?: 'model' | 'provider' | 'user';
}) {
  const empty = !data || data.totalCredits === 0;
  return (
    <ChartPanel
      id={id}
      title={`Spend per day, by ${dimension}`}
      unit={data ? `in credits · ${formatCredits(data.totalCredits)} credits in this range` : 'in credits'}
      loading={loading && !data}
      error={error}
      empty={empty}
      table={
        data && (
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {data.series.map((s) => (
                  <th scope="col" className="num" key={s.key}>{s.name}</th>
                ))}
                <th scope="col" className="num">Total credits</th>
              </tr>
            </thead>
            <tbody>
              {data.points.filter((p) => p.total > 0).map((p) => (
                <tr key={p.day}>
                  <td>{p.day}</td>
                  {data.series.map((s) => (
                    <td className="num" key={s.key}>{formatCredits(Number(p[s.key] ?? 0))}</td>
                  ))}
                  <td className="num">{formatCredits(p.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    >
      {data && (
        <ResponsiveContainer width="100%" height={300}>
          <BarChart data={data.points} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tickFormatter={shortDay} minTickGap={16} />
            <YAxis tickFormatter={formatCreditsShort} width={64} label={{ value: 'credits', angle: -90, position: 'insideLeft', offset: 0 }} />
            <Tooltip labelFormatter={(d) => `${shortDay(String(d))} (UTC)`} formatter={(v, name) => [`${formatCredits(Number(v))} credits`, name]} />
            <Legend itemSorter={null} />
            {data.series.map((s, i) => (
              <Bar key={s.key} dataKey={s.key} name={s.name} stackId={id} fill={s.key === 'other' ? OTHER_COLOUR : colourAt(i)} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      )}
    </ChartPanel>
  );
}
