import pg from 'pg';

/** Users whose cached balance or held amount (the account row with its pending rows, migration 020) disagrees with their transactions and holds (must be none). */
export async function ledgerViolations(databaseUrl: string): Promise<{ user_id: string; balance_micro: string; sum_micro: string; held_micro: string; sum_held: string }[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query(`
      select a.user_id, a.balance_micro::text, coalesce(t.sum, 0)::text as sum_micro, a.held_micro::text, coalesce(h.sum, 0)::text as sum_held
      from gengate.account_totals a
      left join (select user_id, sum(credits_micro) as sum from gengate.transactions where status = 'completed' group by user_id) t on t.user_id = a.user_id
      left join (select user_id, sum(amount_micro) as sum from gengate.holds where state = 'held' group by user_id) h on h.user_id = a.user_id
      where a.balance_micro <> coalesce(t.sum, 0) or a.held_micro <> coalesce(h.sum, 0) or a.balance_micro < 0 or a.held_micro > a.balance_micro`);
    // The unfinished-task counts on the account rows must match the tasks (the recount corrects none).
    const drift = await c.query<{ user_id: string }>('select * from gengate.gengate_recount_active_tasks() as user_id');
    return [...rows, ...drift.rows.map((r) => ({ user_id: r.user_id, balance_micro: 'task counts drifted', sum_micro: '', held_micro: '', sum_held: '' }))];
  } finally {
    await c.end();
  }
}
