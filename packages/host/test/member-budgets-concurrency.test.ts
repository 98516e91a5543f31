import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/server/start-server.js';
import { startTwoApiHosts, type BurstResult, type TwoApiHosts } from './support/two-api-hosts.js';

/**
 * A member's spend limit in an organization (docs/organizations.md, migration 026) across two processes:
 * two hosts (each its own pool, key cache and container) on one database, API role only (no worker: every
 * accepted task stays waiting with its hold). The member is the owner of their personal organization, with
 * three keys; a sandbox pixel image is quoted 2 credits. The clock is injected into both hosts and starts
 * on Thursday 2026-11-26 10:00 UTC.
 */
describe('a member spend limit under concurrency, over three keys and two processes', () => {
  let h: TwoApiHosts;
  let a: RunningServer;
  let b: RunningServer;
  let admin: pg.Client;
  let rootKey: string;
  let userId: string;
  const call = (...args: Parameters<TwoApiHosts['call']>) => h.call(...args);
  const count = (sql: string, values: unknown[] = []) => h.count(sql, values);
  const heldMicro = () => h.heldMicro();
  const newKey = (body: object = {}) => h.newKey(body);
  const submit = (server: RunningServer, key: string) =>
    call(server, key, '/run/sandbox.pixel-image', { method: 'POST', body: JSON.stringify({ prompt: 'member budget', image_params: { width: 64, height: 64 } }) });
  const setMemberLimit = (credits: number | null, period: string) =>
    admin.query(`update gengate.organization_members set spend_limit_micro = $3, budget_period = $4 where organization_id = $1 and user_id = $2`, [
      userId,
      userId,
      credits === null ? null : credits * 1_000_000,
      period,
    ]);
  const memberSpend = async () =>
    (await admin.query<{ period: Date; spent: string }>(`select period_start as period, held_micro + charged_micro as spent from gengate.member_spend_totals where member_id = $1 order by period_start`, [userId])).rows.map(
      (r) => [r.period.toISOString(), Number(r.spent)],
    );
  /** Answers of `n` submissions fired at once, round-robin over the keys and alternating between the two hosts. */
  const burst = (keys: readonly string[], n: number): Promise<BurstResult> => h.burst(n, (server, i) => submit(server, keys[i % keys.length] ?? ''));

  beforeAll(async () => {
    h = await startTwoApiHosts({ email: 'member-budgets@example.com', credits: 100_000, startAt: '2026-11-26T10:00:00.000Z' });
    ({ a, b, admin, rootKey, userId } = h);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('200 concurrent submissions over 3 keys of one member whose daily limit covers exactly 50 quotes: 50 accepted, 150 member_budget_exceeded; the next UTC day accepts again', { timeout: 120_000 }, async () => {
    const keys = [await newKey(), await newKey(), await newKey()];
    await setMemberLimit(100, 'day');
    const heldBefore = await heldMicro();
    const result = await burst(
      keys.map((k) => k.key),
      200,
    );
    expect(result).toEqual({ accepted: 50, refused: { '402 member_budget_exceeded': 150 } });
    expect(await count(`select count(*) as n from gengate.tasks where user_id = $1 and member_id = $1`, [userId])).toBe(50);
    expect((await heldMicro()) - heldBefore).toBe(100_000_000);
    // Every key took part: the limit is the member's, not a key's.
    for (const k of keys) expect(await count(`select count(*) as n from gengate.tasks where api_key_id = $1`, [k.id])).toBeGreaterThan(0);
    expect(await memberSpend()).toEqual([['2026-11-26T00:00:00.000Z', 100_000_000]]);

    // The refusal names the limit and when it resets; it held nothing.
    const refused = await submit(b, keys[0]?.key ?? '');
    expect(refused.status).toBe(402);
    const body = (await refused.json()) as { message: string; error: { type: string; resets_at: string } };
    expect(body.error).toMatchObject({ type: 'member_budget_exceeded', resets_at: '2026-11-27T00:00:00.000Z' });
    expect(body.message).toContain('spent 100 of your 100 credit spend limit');
    expect((await heldMicro()) - heldBefore).toBe(100_000_000);

    // The OpenAI and Anthropic surfaces (run inline) hold through the same rule, in their own dialects.
    const tasksBefore = await count(`select count(*) as n from gengate.tasks where user_id = $1`, [userId]);
    const openai = await fetch(`${a.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[1]?.key ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox.echo-chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(openai.status).toBe(429);
    expect(openai.headers.get('x-should-retry')).toBe('false');
    expect(((await openai.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'insufficient_quota', code: 'member_budget_exceeded' });
    const anthropic = await fetch(`${b.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': keys[2]?.key ?? '', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox.echo-chat', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(anthropic.status).toBe(402);
    expect(((await anthropic.json()) as { error: { type: string } }).error.type).toBe('billing_error');
    expect(await count(`select count(*) as n from gengate.tasks where user_id = $1`, [userId])).toBe(tasksBefore);

    // 00:00 UTC the next day: a new period, in both processes.
    h.setNow('2026-11-27T00:00:00.000Z');
    expect((await submit(b, keys[1]?.key ?? '')).status).toBe(200);
    expect((await submit(a, keys[2]?.key ?? '')).status).toBe(200);
    expect(await memberSpend()).toEqual([
      ['2026-11-26T00:00:00.000Z', 100_000_000],
      ['2026-11-27T00:00:00.000Z', 4_000_000],
    ]);
  });

  it("checks the key's own budget first, then the member's: the tighter one refuses", { timeout: 60_000 }, async () => {
    h.setNow('2026-11-30T12:00:00.000Z'); // a Monday
    await setMemberLimit(6, 'week');
    const tight = await newKey({ spend_limit: 4, budget_period: 'day' });
    const loose = await newKey();
    expect((await submit(a, tight.key)).status).toBe(200);
    expect((await submit(b, tight.key)).status).toBe(200);
    // The key's 4 are spent (and the member has 2 of 6 left): the key refuses.
    const byKey = await submit(a, tight.key);
    expect(byKey.status).toBe(402);
    expect(((await byKey.json()) as { error: { type: string; resets_at: string } }).error).toEqual({ type: 'key_budget_exceeded', param: null, resets_at: '2026-12-01T00:00:00.000Z' });
    // Another key of the member: the member's limit has room for one more.
    expect((await submit(b, loose.key)).status).toBe(200);
    const byMember = await submit(a, loose.key);
    expect(byMember.status).toBe(402);
    expect(((await byMember.json()) as { error: { type: string; resets_at: string } }).error).toEqual({ type: 'member_budget_exceeded', param: null, resets_at: '2026-12-07T00:00:00.000Z' });
    // Both exhausted: the key's refusal comes first.
    const both = await submit(b, tight.key);
    expect(((await both.json()) as { error: { type: string } }).error.type).toBe('key_budget_exceeded');
    // Raising the member's limit takes effect on the next submission.
    await setMemberLimit(8, 'week');
    expect((await submit(a, loose.key)).status).toBe(200);
    await setMemberLimit(null, 'week');
    expect((await submit(b, loose.key)).status).toBe(200);
  });
});
