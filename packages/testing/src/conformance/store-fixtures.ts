import { randomBytes, randomUUID } from 'node:crypto';
import type { NewApiKey, OrganizationStore, RunRequest, TaskRecord, TransactionRecord, TransactionScope, UnitOfWork, UserRecord } from '@gengate/core';

import { expect } from 'vitest';
/** What a store implementation hands the suite: the stores outside any transaction, and its unit of work. */
export interface StoreConformanceHarness {
  /** The stores, each call committing on its own (what createGengate calls `stores`). */
  readonly scope: TransactionScope;
  readonly uow: UnitOfWork;
  /** The organization store over the same rows (its contract runs unless skipped with 'organizations'). */
  readonly organizations?: OrganizationStore;
  /** Releases everything the factory opened (connections, databases). */
  cleanup(): Promise<void>;
}

/** Checks to switch off for implementations that do not have the property (the memory stores do not roll back). */
export type StoreConformanceSkip = 'rollback' | 'organizations';

export interface StoreConformanceOptions {
  readonly skip?: readonly StoreConformanceSkip[];
}

/** Thrown inside a unit of work by the rollback checks. */
export class DeliberateFailure extends Error {
  constructor() {
    super('deliberate failure inside a unit of work');
    this.name = 'DeliberateFailure';
  }
}

export const REQUEST: RunRequest = { prompt: 'store conformance: a small red square' };

/** The fields of a task's success that the store tests do not look at. */
export const EMPTY_SUCCESS = () => ({ outputs: [], warnings: [], chargedMicro: 0, costMicro: 0, reportedCostMicro: null, usage: {}, metadata: {}, at: new Date() });

/** Resolves once Date.now() has moved past its value at the call: rows created after it get a later timestamp. */
export async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  const until = start + 1_000;
  while (Date.now() <= start + 1) {
    if (Date.now() > until) throw new Error('the clock did not advance');
    await new Promise((r) => setTimeout(r, 1));
  }
}

export function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** The helpers every part of the suite shares, bound to the harness of the running suite. */
export function createStoreFixtures(h: () => StoreConformanceHarness, skip: ReadonlySet<StoreConformanceSkip>) {
  const stores = (): TransactionScope => h().scope;

  async function newUser(emailLocal = `user-${hex(6)}`): Promise<UserRecord> {
    const user = await stores().users.insert({ id: randomUUID(), email: `${emailLocal}@example.com` });
    await stores().ledger.openAccount(user.id);
    return user;
  }

  function keyFor(userId: string, patch: Partial<NewApiKey> = {}): NewApiKey {
    return {
      id: randomUUID(),
      userId,
      name: 'conformance key',
      secretHash: hex(32),
      mask: 'gg_live_…abcd',
      limits: { perMinute: null, perHour: null, perDay: null },
      ipWhitelist: [],
      ...patch,
    };
  }

  function taskFor(userId: string, quotedMicro = 0, id = randomUUID()) {
    return {
      id,
      userId,
      apiKeyId: null,
      modelId: 'conformance.image',
      modality: 'image' as const,
      request: REQUEST,
      callbackUrl: null,
      quotedMicro,
      quotedCostMicro: quotedMicro,
      admitted: true,
    };
  }

  async function newTask(userId: string, quotedMicro = 0): Promise<TaskRecord> {
    return stores().tasks.insert(taskFor(userId, quotedMicro));
  }

  /** Holds, then inserts the task, in one unit of work: the order SubmitRun uses. */
  async function holdTask(userId: string, amountMicro: number): Promise<string> {
    const taskId = randomUUID();
    await h().uow.run(async (tx) => {
      await tx.ledger.hold(userId, taskId, amountMicro);
      await tx.tasks.insert(taskFor(userId, amountMicro, taskId));
    });
    return taskId;
  }

  async function grant(userId: string, creditsMicro: number, description = 'conformance grant'): Promise<TransactionRecord> {
    return stores().ledger.record({
      userId,
      creditsMicro,
      amountMicroUsd: 0,
      paymentMethod: 'grant',
      status: 'completed',
      description,
    });
  }

  async function allTransactions(userId: string): Promise<TransactionRecord[]> {
    const out: TransactionRecord[] = [];
    for (let page = 1; ; page++) {
      const p = await stores().ledger.listTransactions(userId, page, 50);
      out.push(...p.items);
      if (p.items.length < 50) {
        expect(out.length).toBe(p.total);
        return out;
      }
    }
  }

  /** The ledger invariant: the balance is the sum of the completed transactions, and nothing negative is held. */
  async function expectLedgerInvariant(userId: string): Promise<void> {
    const txs = await allTransactions(userId);
    const sum = txs.filter((t) => t.status === 'completed').reduce((s, t) => s + t.creditsMicro, 0);
    const balance = await stores().ledger.getBalance(userId);
    expect(balance.balanceMicro).toBe(sum);
    expect(balance.heldMicro).toBeGreaterThanOrEqual(0);
  }

  async function usageOf(userId: string, taskId: string): Promise<TransactionRecord[]> {
    return (await allTransactions(userId)).filter((t) => t.taskId === taskId && t.paymentMethod === 'usage');
  }

  async function expectInsufficient(p: Promise<unknown>): Promise<void> {
    await expect(p).rejects.toMatchObject({ name: 'GatewayError', type: 'insufficient_credits' });
  }

  const organizations = (): OrganizationStore | undefined => h().organizations;
  return { h, stores, organizations, skip, newUser, keyFor, taskFor, newTask, holdTask, grant, allTransactions, expectLedgerInvariant, usageOf, expectInsufficient };
}

export type StoreFixtures = ReturnType<typeof createStoreFixtures>;
