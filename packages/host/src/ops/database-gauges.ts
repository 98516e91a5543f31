import type { Queryable } from '../postgres/queryable.js';
import { CachedCheck } from './cached-check.js';
import type { GengateMetrics } from './gengate-metrics.js';
import { quoteIdent } from '../postgres/schema.js';

/** Outstanding holds (partial index holds_outstanding, migration 016) and the unfinished-task counts kept on account rows (with their pending rows: account_totals, migration 020). */
export function databaseGaugesSql(schema: string): string {
  const s = quoteIdent(schema);
  return `select
      (select count(*) from ${s}.holds where state = 'held')::int as holds,
      (select coalesce(sum(held_micro), 0) from ${s}.account_totals)::text as held_micro,
      (select coalesce(sum(running_chat + running_image + running_video), 0) from ${s}.account_totals)::int as running,
      (select coalesce(sum(queued_chat + queued_image + queued_video), 0) from ${s}.account_totals)::int as queued`;
}

/** Sets the database gauges from one small query (DatabaseGauges calls it at most once per refresh interval). */
export async function refreshDatabaseGauges(db: Queryable, metrics: GengateMetrics, schema: string): Promise<void> {
  const { rows } = await db.query<{ holds: number; held_micro: string; running: number; queued: number }>(databaseGaugesSql(schema));
  const r = rows[0];
  if (!r) return;
  metrics.holdsOutstanding.set(r.holds);
  metrics.heldCredits.set(Number(r.held_micro));
  metrics.tasksInFlight.set({ state: 'running' }, r.running);
  metrics.tasksInFlight.set({ state: 'queued' }, r.queued);
}

/** How old the database gauges may be when /metrics is scraped. */
export const DATABASE_GAUGES_MAX_AGE_MS = 5_000;

/**
 * The database gauges as /metrics serves them: read at scrape time, but at most once per `maxAgeMs`
 * whatever the scrape rate (concurrent scrapes share one query), so scraping cannot load the database.
 */
export function databaseGauges(db: Queryable, metrics: GengateMetrics, schema: string, maxAgeMs = DATABASE_GAUGES_MAX_AGE_MS): CachedCheck<void> {
  return new CachedCheck(() => refreshDatabaseGauges(db, metrics, schema), maxAgeMs);
}
