import { Link } from 'react-router';
import { Bar, BarChart, CartesianGrid, LabelList, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ApiKey } from '../../api/types';
import { keyBudgetBars, periodWords, resetWords } from '../../usage/key-budgets';
import { formatCredits } from '../common';
import { ChartPanel } from './ChartPanel';
import { colourAt, formatCreditsShort, OTHER_COLOUR } from './palette';

/** One bar per key with a spend limit: spent against what is left, with the reset time; "almost used up" from 90 %. */
export function KeyBudgetChart({ keys, loading, error }: { keys: ApiKey[] | undefined; loading: boolean; error: unknown }) {
  const { bars, unlimited } = keyBudgetBars(keys ?? []);
  const points = bars.map((b) => ({ ...b, label: `${formatCreditsShort(b.spent)} / ${formatCreditsShort(b.limit)} (${b.percent} %)` }));
  return (
    <ChartPanel
      id="chart-key-budgets"
      title="Budget consumption per key"
      unit="credits spent (held and charged) in the key's current period, against its limit"
      loading={loading && !keys}
      error={error}
      empty={bars.length === 0}
      emptyText={<>No key has a spend limit. Set one on the <Link to="/keys">API keys</Link> page.</>}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col" className="num">Spent</th>
              <th scope="col" className="num">Limit</th>
              <th scope="col">Period</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <tr key={b.id}>
                <td>{b.name}</td>
                <td className="num">{formatCredits(b.spent)}</td>
                <td className="num">{formatCredits(b.limit)}</td>
                <td>{periodWords(b.period)}, {resetWords(b.resets_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <ResponsiveContainer width="100%" height={Math.max(140, 48 * bars.length + 70)}>
        <BarChart data={points} layout="vertical" margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" domain={[0, 'dataMax']} tickFormatter={formatCreditsShort} />
          <YAxis type="category" dataKey="name" width={140} />
          <Tooltip formatter={(v, name) => [`${formatCredits(Number(v))} credits`, name]} />
          <Legend itemSorter={null} />
          <Bar dataKey="spent" name="Spent" stackId="budget" fill={colourAt(0)} isAnimationActive={false} />
          <Bar dataKey="remaining" name="Left" stackId="budget" fill={OTHER_COLOUR} fillOpacity={0.35} isAnimationActive={false}>
            <LabelList dataKey="label" position="insideRight" fill="#222" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <ul className="plain key-budgets" data-testid="key-budgets">
        {bars.map((b) => (
          <li key={b.id} data-testid="key-budget" data-key={b.name} data-percent={b.percent}>
            <strong>{b.name}</strong>: {formatCredits(b.spent)} of {formatCredits(b.limit)} credits {periodWords(b.period)} ({b.percent} %)
            {b.percent >= 90 && <span className="neg"> · almost used up</span>} · {resetWords(b.resets_at)}
          </li>
        ))}
      </ul>
      {unlimited.length > 0 && <p className="muted">Without a spend limit: {unlimited.join(', ')}.</p>}
    </ChartPanel>
  );
}
