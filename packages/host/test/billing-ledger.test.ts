import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGenerationWorker, type GenerationWorker } from '../src/jobs/generation-worker.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';

/** The ledger on PostgreSQL under concurrency, and what a task costs. */
describe('ledger', () => {
  let h: PgGengate;
  let worker: GenerationWorker | null = null;

  beforeAll(async () => {
    h = await openPgGengate();
  });

  afterAll(async () => {
    await worker?.stop();
    await h?.close();
  });

  it('200 concurrent runs against a balance covering exactly 50 quotes: 50 accepted, 150 refused with 402', async () => {
    const auth = await h.user(100); // a 512x512 sandbox image is quoted 2 credits
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, () => h.gengate.submitRun.execute(auth, 'sandbox.pixel-image', { prompt: 'coin' })),
    );
    const accepted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(accepted).toHaveLength(50);
    expect(refused).toHaveLength(150);
    for (const r of refused) expect((r.reason as { type?: string }).type).toBe('insufficient_credits');
    const balance = await h.gengate.billing.balance(auth);
    expect(balance).toMatchObject({ credits: 100, held_credits: 100, available_credits: 0 });
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });

  it('charges what succeeded (chat by its reported tokens), nothing for failures, and keeps the invariant', async () => {
    worker = await startGenerationWorker(h.boss, h.gengate, { logger: pino({ level: 'silent' }) });
    const auth = await h.user(50);
    const chat = await h.gengate.submitRun.execute(auth, 'sandbox.echo-chat', { prompt: 'Say hello', llm_params: { max_tokens: 16 } });
    const failing = await h.gengate.submitRun.execute(auth, 'sandbox.always-fail', {});
    const ended = async (id: string) => {
      for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
        const t = await h.gengate.getTask.execute(auth, id);
        if (t.status === 'success' || t.status === 'fail') return t;
      }
      throw new Error(`task ${id} did not end`);
    };
    expect((await ended(chat.task_id)).status).toBe('success');
    expect((await ended(failing.task_id)).status).toBe('fail');
    const tx = await h.gengate.billing.transactions(auth, {});
    const usage = tx.data.filter((t) => t.payment_method === 'usage');
    expect(usage).toHaveLength(1);
    // 2 input tokens x 10 credits/M + 16 output tokens x 30 credits/M = 0.0005 credits
    expect(usage[0]).toMatchObject({ task_id: chat.task_id, credits: -0.0005, amount: 0.000005, status: 'completed' });
    expect(await h.gengate.billing.balance(auth)).toMatchObject({ credits: 49.9995, held_credits: 0 });
    expect(await ledgerViolations(h.db.url)).toEqual([]);
  });
});
