/**
 * Turns `GET /api/v1/usage` rows into what the charts draw. Pure functions, so they are tested without a
 * browser (series.test.ts). Credits are added up in integer micro-credits and turned back into credits
 * once, so a day's stack never shows float dust such as 0.30000000000000004.
 */
import type { UsageRow } from '../api/usage-types';

const MICRO = 1_000_000;
const toMicro = (credits: number): number => Math.round(credits * MICRO);
const fromMicro = (micro: number): number => micro / MICRO;

/** The models drawn one by one in a stack; the rest are added up as "other". */
export const MAX_STACKED_SERIES = 8;
export const OTHER = 'other models';

export type RangeDays = 7 | 30 | 90;
export const RANGES: readonly RangeDays[] = [7, 30, 90];

/** The UTC days of a range ending today: `from` is the first day's midnight, `to` the next midnight after today (exclusive). */
export function rangeOf(days: RangeDays, now: Date = new Date()): { from: string; to: string; days: string[] } {
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const start = end - days * 86_400_000;
  const list: string[] = [];
  for (let t = start; t < end; t += 86_400_000) list.push(new Date(t).toISOString().slice(0, 10));
  return { from: new Date(start).toISOString(), to: new Date(end).toISOString(), days: list };
}

/** A row's day as YYYY-MM-DD, whether the API gives a date or a timestamp. */
const dayOf = (row: UsageRow): string => (row.day ?? row.hour ?? '').slice(0, 10);

export interface StackedSeries {
  /** One entry per stacked series: the key in each point and the name in the legend. */
  series: { key: string; name: string }[];
  /** One point per day, zero where nothing was spent; `total` is the day's sum. */
  points: ({ day: string; total: number } & Record<string, number | string>)[];
  totalCredits: number;
}

/** Spend per day stacked by model (rows grouped by day and model), the biggest models first. */
export const spendByDayAndModel = (rows: readonly UsageRow[], days: readonly string[]): StackedSeries => stackedByDay(rows, days, (r) => r.model ?? 'unknown');

/**
 * Credits per day stacked by any second dimension (`nameOf` reads it from a row: model, provider, user),
 * the biggest first; past MAX_STACKED_SERIES the smallest are added up as "other".
 */
export function stackedByDay(rows: readonly UsageRow[], days: readonly string[], nameOf: (row: UsageRow) => string, otherName: string = OTHER): StackedSeries {
  const perName = new Map<string, number>();
  for (const r of rows) perName.set(nameOf(r), (perName.get(nameOf(r)) ?? 0) + toMicro(r.credits));
  const ranked = [...perName.entries()].filter(([, micro]) => micro > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const drawn = ranked.length > MAX_STACKED_SERIES ? ranked.slice(0, MAX_STACKED_SERIES - 1) : ranked;
  const keyOf = new Map(drawn.map(([name], i) => [name, `s${i}`]));
  const series = drawn.map(([name], i) => ({ key: `s${i}`, name }));
  if (ranked.length > drawn.length) series.push({ key: 'other', name: otherName });

  const byDay = new Map<string, Map<string, number>>(days.map((d) => [d, new Map()]));
  for (const r of rows) {
    const cell = byDay.get(dayOf(r));
    if (!cell) continue;
    const key = keyOf.get(nameOf(r)) ?? 'other';
    cell.set(key, (cell.get(key) ?? 0) + toMicro(r.credits));
  }
  let total = 0;
  const points = days.map((day) => {
    const cell = byDay.get(day) ?? new Map<string, number>();
    const point: { day: string; total: number } & Record<string, number | string> = { day, total: 0 };
    let dayTotal = 0;
    for (const s of series) {
      const micro = cell.get(s.key) ?? 0;
      point[s.key] = fromMicro(micro);
      dayTotal += micro;
    }
    point.total = fromMicro(dayTotal);
    total += dayTotal;
    return point;
  });
  return { series, points, totalCredits: fromMicro(total) };
}

export interface TasksPoint {
  day: string;
  tasks: number;
  failures: number;
  /** Failed tasks in percent of the day's tasks, one decimal; null on a day without tasks. */
  failure_rate: number | null;
}

/** Tasks, failures and the failure rate per day (any grouping that includes the day). */
export function tasksByDay(rows: readonly UsageRow[], days: readonly string[]): TasksPoint[] {
  const sums = new Map<string, { tasks: number; failures: number }>(days.map((d) => [d, { tasks: 0, failures: 0 }]));
  for (const r of rows) {
    const s = sums.get(dayOf(r));
    if (!s) continue;
    s.tasks += r.tasks;
    s.failures += r.failures;
  }
  return days.map((day) => {
    const { tasks, failures } = sums.get(day) ?? { tasks: 0, failures: 0 };
    return { day, tasks, failures, failure_rate: tasks === 0 ? null : Math.round((failures / tasks) * 1000) / 10 };
  });
}

export interface LatencyPoint {
  model: string;
  p50: number;
  p95: number;
  tasks: number;
}

/** Latency p50/p95 per model (rows grouped by model: percentiles cannot be added up across days), slowest p95 first. */
export function latencyByModel(rows: readonly UsageRow[]): LatencyPoint[] {
  return rows
    .filter((r) => r.latency_p50_ms !== null && r.latency_p95_ms !== null)
    .map((r) => ({ model: r.model ?? 'unknown', p50: r.latency_p50_ms ?? 0, p95: r.latency_p95_ms ?? 0, tasks: r.tasks }))
    .sort((a, b) => b.p95 - a.p95 || a.model.localeCompare(b.model));
}

/** "Nov 24" for a YYYY-MM-DD day, read in UTC (the days are UTC days). */
export const shortDay = (day: string): string => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
