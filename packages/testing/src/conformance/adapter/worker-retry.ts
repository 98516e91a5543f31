import type { ProviderAdapter, RunRequest, TaskRecord } from '@gengate/core';
import { describe, expect, it } from 'vitest';
import type { FakeFault, FakeUpstream } from '../../fakes/fake-upstream.js';
import { createMemoryGengate } from '../../fakes/memory-gengate.js';

export interface WorkerRetryOptions {
  readonly adapter: () => ProviderAdapter | Promise<ProviderAdapter>;
  readonly upstream: FakeUpstream;
  /** A model of the adapter and a request it accepts. */
  readonly model: string;
  readonly request: RunRequest;
  /** The provider's own rate-limit answer, with `retry-after: <retryAfterSeconds>`. */
  readonly rateLimited: FakeFault;
  readonly retryAfterSeconds: number;
  /** Non-retryable answers of the provider, each with a fragment its task error_message must contain. */
  readonly failures: readonly { readonly name: string; readonly fault: FakeFault; readonly message: RegExp }[];
  /** The credential: it must never appear in an error message. */
  readonly credential?: string;
}

interface Outcome {
  readonly task: TaskRecord;
  readonly creditsBefore: number;
  readonly creditsAfter: number;
  readonly usageCharges: number;
}

async function runOnce(o: WorkerRetryOptions): Promise<Outcome> {
  const m = createMemoryGengate({ adapters: [await o.adapter()] });
  const { api_key } = await m.gengate.admin.createUser({ email: `retry-${crypto.randomUUID()}@example.com`, credits: 1_000 });
  const auth = await m.gengate.authenticate.execute(api_key, null);
  const creditsBefore = (await m.gengate.billing.balance(auth)).credits;
  const accepted = await m.gengate.submitRun.execute(auth, o.model, o.request);
  await m.drainJobs();
  const task = m.db.tasks.get(accepted.task_id);
  if (!task) throw new Error('task vanished');
  return {
    task,
    creditsBefore,
    creditsAfter: (await m.gengate.billing.balance(auth)).credits,
    usageCharges: m.db.transactions.filter((t) => t.userId === task.userId && t.paymentMethod === 'usage').length,
  };
}

/**
 * The worker's answer to the provider's own error bodies, through the real use cases (in memory): a
 * rate limit is retried as a new attempt no sooner than Retry-After and charged once; the other failures
 * end the task at once, with a readable error_message, no key in it, and nothing charged.
 */
export function describeWorkerRetry(name: string, o: WorkerRetryOptions): void {
  describe(`worker retries: ${name}`, () => {
    it(`retries a rate-limited call after Retry-After (${o.retryAfterSeconds} s) as a new attempt and charges once`, { timeout: 30_000 + o.retryAfterSeconds * 1000 }, async () => {
      o.upstream.reset();
      o.upstream.failNext(o.rateLimited, { times: 1 });
      const r = await runOnce(o);
      expect(r.task.status, r.task.errorMessage ?? '').toBe('success');
      expect(r.task.attempts).toBe(2);
      const submissions = o.upstream.calls.filter((c) => c.body !== null);
      expect(submissions).toHaveLength(2);
      const [first, second] = submissions;
      expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(o.retryAfterSeconds * 1000 - 50);
      expect(r.usageCharges).toBe(1);
      expect(r.creditsAfter).toBeLessThan(r.creditsBefore);
    });

    for (const f of o.failures) {
      it(`ends the task at once on ${f.name}, with a readable message and no charge`, async () => {
        o.upstream.reset();
        o.upstream.failNext(f.fault, { times: 1 });
        const r = await runOnce(o);
        expect(r.task.status).toBe('fail');
        expect(r.task.attempts).toBe(1);
        expect(o.upstream.calls.filter((c) => c.body !== null)).toHaveLength(1);
        expect(r.task.errorMessage ?? '').toMatch(f.message);
        expect(r.task.errorMessage ?? '').toMatch(/No credits were charged\./);
        if (o.credential) expect(r.task.errorMessage ?? '').not.toContain(o.credential);
        expect(r.creditsAfter).toBe(r.creditsBefore);
        expect(r.usageCharges).toBe(0);
      });
    }
  });
}
