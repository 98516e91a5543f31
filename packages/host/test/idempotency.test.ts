import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerViolations } from './support/ledger-invariant.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';

describe('Idempotency-Key on POST /run (PostgreSQL)', () => {
  let h: PgGengate;

  beforeAll(async () => {
    h = await openPgGengate();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('answers the first response for the same key and body, creating nothing more', async () => {
    const auth = await h.user(100);
    const body = { prompt: 'once', image_params: { seed: 1, width: 64, height: 64 } };
    const first = await h.gengate.submitRun.execute(auth, 'sandbox.pixel-image', body, { idempotencyKey: 'order-1' });
    const reordered = { image_params: { height: 64, width: 64, seed: 1 }, prompt: 'once' };
    const again = await h.gengate.submitRun.execute(auth, 'sandbox.pixel-image', reordered, { idempotencyKey: 'order-1' });
    expect(again).toEqual(first);
    expect(await h.gengate.billing.balance(auth)).toMatchObject({ held_credits: 2 });
  });

  it('refuses the same key with another body (409) and lets other users use the same key', async () => {
    const auth = await h.user(100);
    await h.gengate.submitRun.execute(auth, 'sandbox.pixel-image', { prompt: 'a' }, { idempotencyKey: 'k' });
    await expect(h.gengate.submitRun.execute(auth, 'sandbox.pixel-image', { prompt: 'b' }, { idempotencyKey: 'k' })).rejects.toMatchObject({ type: 'conflict' });
    await expect(h.gengate.submitRun.execute(auth, 'sandbox.echo-chat', { prompt: 'a' }, { idempotencyKey: 'k' })).rejects.toMatchObject({ type: 'conflict' });
    const other = await h.user(100);
    const theirs = await h.gengate.submitRun.execute(other, 'sandbox.pixel-image', { prompt: 'a' }, { idempotencyKey: 'k' });
    expect(theirs.status).toBe('waiting');
    expect(await h.gengate.billing.balance(auth)).toMatchObject({ held_credits: 2 });
  });

  it('creates one task for 20 concurrent requests with the same key', async () => {
    const auth = await h.user(100);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.gengate.submitRun.execute(auth, 'sandbox.pixel-image', { prompt: 'race' }, { idempotencyKey: 'race-1' })),
    );
    expect(new Set(results.map((r) => r.task_id)).size).toBe(1);
    expect(await h.gengate.billing.balance(auth)).toMatchObject({ credits: 100, held_credits: 2 });
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });
});
