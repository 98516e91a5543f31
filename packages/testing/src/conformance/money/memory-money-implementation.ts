import { createGengate, createMemoryStores, MemoryBlobStore, type PaymentProcessor } from '@gengate/core';
import type { MoneyImplementation, MoneyImplementationConfig, RawMoneyState } from './money-harness.js';

const manualProcessor: PaymentProcessor = { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) };

/** The money contract's subject over the in-memory stores (core's TypeScript rules over the unit of work), fresh each time. */
export async function openMemoryMoneyImplementation(config: MoneyImplementationConfig): Promise<MoneyImplementation> {
  const { db, scope, uow, usage, organizations } = createMemoryStores();
  const gengate = createGengate({
    adapters: config.adapters,
    stores: scope,
    unitOfWork: uow,
    blobStore: new MemoryBlobStore(),
    resultUrls: { urlFor: (key) => `http://gengate.test/api/v1/files/${key}` },
    paymentProcessor: manualProcessor,
    scheduling: config.scheduling,
    usageReader: usage,
    organizations,
    ...(config.clock ? { clock: config.clock } : {}),
  });
  return {
    gengate,
    async readState(userIds) {
      const ofUsers = new Set(userIds);
      const tasks = [...db.tasks.values()].filter((t) => ofUsers.has(t.userId));
      const holds = [...db.holds.values()].filter((h) => ofUsers.has(h.userId));
      const transactions = db.transactions.filter((t) => ofUsers.has(t.userId));
      const alerts = [...db.alerts.values()].filter((a) => ofUsers.has(a.userId));
      const userOfTask = new Map(tasks.map((t) => [t.id, t.userId]));
      const userOfAlert = new Map(alerts.map((a) => [a.id, a.userId]));
      return {
        // The memory ledger keeps no cached figures: its balance is computed from the rows.
        accounts: userIds.map((userId) => ({
          userId,
          balanceMicro: transactions.filter((t) => t.userId === userId && t.status === 'completed').reduce((n, t) => n + t.creditsMicro, 0),
          heldMicro: holds.filter((h) => h.userId === userId && h.state === 'held').reduce((n, h) => n + h.amountMicro, 0),
        })),
        transactions: transactions.map((t) => ({
          userId: t.userId,
          taskId: t.taskId,
          creditsMicro: t.creditsMicro,
          amountMicroUsd: t.amountMicroUsd,
          paymentMethod: t.paymentMethod,
          status: t.status,
          description: t.description,
        })),
        holds: holds.map((h) => ({ userId: h.userId, taskId: h.taskId, amountMicro: h.amountMicro, state: h.state })),
        tasks: tasks.map((t) => ({
          id: t.id,
          userId: t.userId,
          status: t.status,
          admitted: t.admitted,
          attempts: t.attempts,
          quotedMicro: t.quotedMicro,
          chargedMicro: t.chargedMicro,
          errorMessage: t.errorMessage,
        })),
        alerts: alerts.map((a) => ({ userId: a.userId, thresholdMicro: a.thresholdMicro, armed: a.armed })),
        jobs: db.jobs.flatMap((j): RawMoneyState['jobs'][number][] => {
          if (j.queue === 'status-check') return [];
          if (j.payload.keyMail) return ofUsers.has(j.payload.keyMail.userId) ? [{ queue: 'key-budget-mail', taskId: null, userId: j.payload.keyMail.userId }] : [];
          const taskId = j.payload.taskId ?? null;
          const userId = taskId !== null ? (userOfTask.get(taskId) ?? null) : j.payload.alertId !== undefined ? (userOfAlert.get(j.payload.alertId) ?? null) : null;
          return userId === null ? [] : [{ queue: j.queue, taskId, userId }];
        }),
      };
    },
    async ageIdempotencyKeys(userId, hours) {
      for (const [k, v] of db.idempotency) if (k.startsWith(`${userId}:`)) db.idempotency.set(k, { ...v, at: v.at - hours * 3_600_000 });
    },
    close: async () => undefined,
  };
}
