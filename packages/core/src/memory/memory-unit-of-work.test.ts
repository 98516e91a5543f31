import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewTask } from '../ports/stores.js';
import type { MemoryDatabase } from './memory-database.js';
import { createMemoryStores } from './memory-unit-of-work.js';

class Deliberate extends Error {}

const task = (userId: string, id = randomUUID()): NewTask => ({
  id,
  userId,
  apiKeyId: null,
  modelId: 'sandbox.image',
  modality: 'image',
  request: { prompt: 'p' },
  callbackUrl: 'https://example.com/hook',
  quotedMicro: 1_000_000,
  quotedCostMicro: 1_000_000,
  admitted: true,
});

/** Every row of the database, as plain data. */
const rows = (db: MemoryDatabase) =>
  structuredClone({
    users: [...db.users],
    keys: [...db.keys],
    tasks: [...db.tasks],
    transactions: [...db.transactions],
    holds: [...db.holds],
    alerts: [...db.alerts],
    accounts: [...db.accounts],
    jobs: [...db.jobs],
    idempotency: [...db.idempotency],
  });

/** A user with credits, a key, an alert, a held task and a pending top-up. */
async function seeded() {
  const m = createMemoryStores();
  const userId = randomUUID();
  const taskId = randomUUID();
  const alertId = randomUUID();
  const keyId = randomUUID();
  const topUp = await m.uow.run(async (tx) => {
    await tx.users.insert({ id: userId, email: `${userId}@example.com` });
    await tx.ledger.openAccount(userId);
    await tx.ledger.record({ userId, creditsMicro: 5_000_000, amountMicroUsd: 0, paymentMethod: 'grant', status: 'completed', description: null });
    await tx.keys.insert({ id: keyId, userId, name: 'k', secretHash: randomUUID(), mask: 'gg_…', limits: { perMinute: null, perHour: null, perDay: null }, ipWhitelist: [] });
    await tx.alerts.insert({ id: alertId, userId, thresholdMicro: 1, armed: true });
    await tx.ledger.hold(userId, taskId, 1_000_000);
    await tx.tasks.insert(task(userId, taskId));
    return tx.ledger.record({ userId, creditsMicro: 1_000_000, amountMicroUsd: 10_000, paymentMethod: 'stripe', status: 'pending', description: null });
  });
  return { ...m, userId, taskId, alertId, keyId, topUpId: topUp.id };
}

describe('memory unit of work (copy-on-write, like a PostgreSQL transaction)', () => {
  it('a failing unit of work leaves every memory store unchanged, whatever it wrote before throwing', async () => {
    const { db, uow, scope, userId, taskId, alertId, keyId, topUpId } = await seeded();
    const before = rows(db);
    const failure = new Deliberate();
    await expect(
      uow.run(async (tx) => {
        await tx.users.insert({ id: randomUUID(), email: 'ghost@example.com' });
        await tx.tasks.markGenerating(taskId, new Date());
        await tx.tasks.markSuccess(taskId, { outputs: [], warnings: [], chargedMicro: 500_000, costMicro: 500_000, reportedCostMicro: null, usage: {}, metadata: {}, at: new Date() });
        await tx.ledger.settle(taskId, 500_000, 'usage');
        await tx.ledger.complete(topUpId);
        await tx.keys.revoke(keyId, userId);
        await tx.alerts.delete(alertId, userId);
        await tx.jobs.enqueueCallback(taskId, userId);
        await tx.idempotency.save(userId, 'k1', 'h', { ok: true });
        await tx.ledger.hold(userId, randomUUID(), 1_000_000);
        expect((await tx.tasks.findById(taskId))?.status).toBe('success');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(rows(db)).toEqual(before);
    expect(await scope.ledger.getBalance(userId)).toEqual({ balanceMicro: 5_000_000, heldMicro: 1_000_000 });
    expect((await scope.tasks.findById(taskId))?.status).toBe('waiting');
  });

  it('writes are invisible outside the unit of work until it commits', async () => {
    const { uow, scope } = createMemoryStores();
    const id = randomUUID();
    let seenOutside: unknown = 'not read';
    await uow.run(async (tx) => {
      await tx.users.insert({ id, email: `${id}@example.com` });
      seenOutside = await scope.users.findById(id);
    });
    expect(seenOutside).toBeNull();
    expect((await scope.users.findById(id))?.id).toBe(id);
  });

  it('a commit keeps rows written outside it meanwhile, and applies its own', async () => {
    const { db, uow, scope, userId, taskId, keyId } = await seeded();
    await uow.run(async (tx) => {
      await scope.keys.touchLastUsed(keyId, new Date('2030-01-01T00:00:00Z')); // outside the unit of work
      db.jobs.splice(0); // a worker took the queued jobs meanwhile
      await tx.tasks.markGenerating(taskId, new Date());
      await tx.jobs.enqueueStatusCheck(taskId, { checkNumber: 1, startAfterMs: 0 });
    });
    expect((await scope.keys.findActiveForUser(keyId, userId))?.lastUsedAt?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect((await scope.tasks.findById(taskId))?.status).toBe('generating');
    expect(db.jobs.map((j) => j.queue)).toEqual(['status-check']);
  });
});
