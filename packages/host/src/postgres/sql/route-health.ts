/**
 * The route breakers' statements (migration 022), as text over gengate's schema (already checked). Every
 * instant is the calling process's clock, passed in: the processes of a deployment share NTP time.
 * Each returning statement answers route rows in the shape of RouteHealthRow.
 */

/** A route_health row with the window's tally (attempts, failures, latency histogram) summed from `$from` on. */
export interface RouteHealthRow {
  readonly route_id: string;
  readonly state: 'closed' | 'open' | 'half_open';
  readonly open_until: Date | null;
  readonly cooldown_ms: number;
  readonly probe_until: Date | null;
  readonly probe_owner: string | null;
  readonly consecutive_failures: number;
  readonly since: Date | null;
  readonly attempts: number;
  readonly failures: number;
  readonly latency: number[] | null;
}

const ROUTE_COLUMNS = 'h.route_id, h.state, h.open_until, h.cooldown_ms, h.probe_until, h.probe_owner, h.consecutive_failures, h.since';

/** The window of a route row `h`: seconds from $from (epoch seconds), not before the breaker last closed. */
const windowOf = (s: string, from: string) => `left join lateral (
    select coalesce(sum(w.attempts), 0)::int as attempts, coalesce(sum(w.failures), 0)::int as failures,
      (select array_agg(v order by i) from (
         select u.i, sum(u.v)::int as v from ${s}.route_health_seconds w2, unnest(w2.latency) with ordinality as u(v, i)
         where w2.route_id = h.route_id and w2.second >= greatest(${from}, coalesce(floor(extract(epoch from h.since))::bigint, 0))
         group by u.i) per_bucket) as latency
    from ${s}.route_health_seconds w
    where w.route_id = h.route_id and w.second >= greatest(${from}, coalesce(floor(extract(epoch from h.since))::bigint, 0))
  ) win on true`;

/** Every route with its window: the process's view. $1 = first second of the window. */
export const readRoutesSql = (s: string): string => `select ${ROUTE_COLUMNS}, win.attempts, win.failures, win.latency from ${s}.route_health h ${windowOf(s, '$1')}`;

/** Makes sure the routes have rows (once per route and process): $1 = route ids. */
export const ensureRoutesSql = (s: string): string => `insert into ${s}.route_health (route_id) select unnest($1::text[]) on conflict (route_id) do nothing`;

/**
 * One flush of a process's batch, in one statement: adds its per-second tallies (upsert, histograms added
 * element by element), updates each route's consecutive failures from the batch's failure run, and answers
 * the routes with their window as it was before this batch (the caller adds its batch: a statement does not
 * see its own writes). $1 = tallies [{route_id, second, attempts, failures, latency}], $2 = runs
 * [{route_id, saw_success, trailing_failures}], $3 = first second of the window.
 */
export const flushSql = (s: string): string => `with tallies as (
    insert into ${s}.route_health_seconds as t (route_id, second, attempts, failures, latency)
    select b.route_id, b.second, b.attempts, b.failures, b.latency
    from jsonb_to_recordset($1::jsonb) as b(route_id text, second bigint, attempts int, failures int, latency int[])
    on conflict (route_id, second) do update set
      attempts = t.attempts + excluded.attempts,
      failures = t.failures + excluded.failures,
      latency = (select array_agg(coalesce(a, 0) + coalesce(c, 0) order by i) from unnest(t.latency, excluded.latency) with ordinality as u(a, c, i))
    returning 1
  ), runs as (
    update ${s}.route_health h set consecutive_failures = case when r.saw_success then r.trailing_failures else h.consecutive_failures + r.trailing_failures end
    from jsonb_to_recordset($2::jsonb) as r(route_id text, saw_success boolean, trailing_failures int)
    where h.route_id = r.route_id
    returning ${ROUTE_COLUMNS}
  )
  select h.*, win.attempts, win.failures, win.latency, (select count(*) from tallies)::int as written from runs h ${windowOf(s, '$3')}`;

/** Compare-and-set closed -> open: $1 route, $2 open_until, $3 cooldown_ms. Answers the row when this call opened it. */
export const openSql = (s: string): string => `update ${s}.route_health h set state = 'open', open_until = $2, cooldown_ms = $3, probe_until = null, probe_owner = null, changed_at = now()
  where h.route_id = $1 and h.state = 'closed' returning ${ROUTE_COLUMNS}`;

/**
 * Compare-and-set: take the half-open probe when the cooldown is over (or the last probe's lease ran out).
 * $1 route, $2 now, $3 probe_until, $4 owner. Concurrent callers queue on the row lock and re-check the
 * condition on the row the winner wrote, so exactly one gets the row back.
 */
export const takeProbeSql = (s: string): string => `update ${s}.route_health h set state = 'half_open', open_until = null, probe_until = $3, probe_owner = $4, changed_at = now()
  where h.route_id = $1 and ((h.state = 'open' and h.open_until <= $2) or (h.state = 'half_open' and (h.probe_until is null or h.probe_until <= $2)))
  returning ${ROUTE_COLUMNS}`;

/** The probe held by $2 succeeded: closed, counts restart, the window starts at $3. */
export const closeAfterProbeSql = (s: string): string => `update ${s}.route_health h set state = 'closed', open_until = null, cooldown_ms = 0, probe_until = null, probe_owner = null,
    consecutive_failures = 0, since = $3, changed_at = now()
  where h.route_id = $1 and h.state = 'half_open' and h.probe_owner = $2 returning ${ROUTE_COLUMNS}`;

/** The probe held by $2 failed: open again until $3 with cooldown $4. */
export const reopenAfterProbeSql = (s: string): string => `update ${s}.route_health h set state = 'open', open_until = $3, cooldown_ms = $4, probe_until = null, probe_owner = null, changed_at = now()
  where h.route_id = $1 and h.state = 'half_open' and h.probe_owner = $2 returning ${ROUTE_COLUMNS}`;

/** The probe held by $2 ended saying nothing (cancelled): the next caller may probe. */
export const releaseProbeSql = (s: string): string => `update ${s}.route_health h set probe_until = null, probe_owner = null, changed_at = now()
  where h.route_id = $1 and h.state = 'half_open' and h.probe_owner = $2 returning ${ROUTE_COLUMNS}`;

/** Tallies older than the window: $1 = first second kept. */
export const purgeSecondsSql = (s: string): string => `delete from ${s}.route_health_seconds where second < $1`;
