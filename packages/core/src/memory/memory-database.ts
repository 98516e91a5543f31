import type { ApiKeyRecord } from '../model/api-key.js';
import type { BalanceAlertRecord, TransactionRecord } from '../model/billing.js';
import type { TaskRecord } from '../model/task.js';
import type { UserRecord } from '../model/user.js';
import type { JsonObject } from '../util/json.js';

export interface MemoryHold {
  userId: string;
  taskId: string;
  amountMicro: number;
  state: 'held' | 'settled' | 'released';
}

export interface MemoryJob {
  queue: 'generate' | 'status-check' | 'callback' | 'alert-mail';
  payload: { taskId?: string; alertId?: string; balanceMicro?: number; checkNumber?: number; providerId?: string };
  startAfterMs: number;
  /** Date.now() when the job may start. */
  availableAt: number;
}

/** The rows of the in-memory stores; one instance is one "database". */
export class MemoryDatabase {
  readonly users = new Map<string, UserRecord>();
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly tasks = new Map<string, TaskRecord>();
  readonly transactions: TransactionRecord[] = [];
  readonly holds = new Map<string, MemoryHold>();
  readonly alerts = new Map<string, BalanceAlertRecord>();
  readonly accounts = new Set<string>();
  readonly jobs: MemoryJob[] = [];
  readonly idempotency = new Map<string, { requestHash: string; response: JsonObject; at: number }>();
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs fn after every earlier serialized call (the memory stand-in for a transaction's isolation); when
   * fn throws, every row it changed is restored (the stand-in for a rollback).
   */
  serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = async () => {
      const snapshot = this.snapshot();
      try {
        return await fn();
      } catch (err) {
        this.restore(snapshot);
        throw err;
      }
    };
    const next = this.tail.then(run, run);
    this.tail = next.catch(() => undefined);
    return next;
  }

  private snapshot() {
    return {
      users: new Map(this.users),
      keys: new Map(this.keys),
      tasks: new Map(this.tasks),
      transactions: [...this.transactions],
      holds: new Map([...this.holds].map(([k, h]) => [k, { ...h }])),
      alerts: new Map(this.alerts),
      accounts: new Set(this.accounts),
      jobs: [...this.jobs],
      idempotency: new Map(this.idempotency),
    };
  }

  private restore(s: ReturnType<MemoryDatabase['snapshot']>): void {
    const refill = <K, V>(target: Map<K, V>, from: Map<K, V>) => {
      target.clear();
      for (const [k, v] of from) target.set(k, v);
    };
    refill(this.users, s.users);
    refill(this.keys, s.keys);
    refill(this.tasks, s.tasks);
    refill(this.holds, s.holds);
    refill(this.alerts, s.alerts);
    refill(this.idempotency, s.idempotency);
    this.transactions.splice(0, this.transactions.length, ...s.transactions);
    this.jobs.splice(0, this.jobs.length, ...s.jobs);
    this.accounts.clear();
    for (const a of s.accounts) this.accounts.add(a);
  }
}
