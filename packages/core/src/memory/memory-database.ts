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
  queue: 'generate' | 'callback' | 'alert-mail';
  payload: { taskId?: string; alertId?: string; balanceMicro?: number };
  startAfterSeconds: number;
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

  /** Runs fn after every earlier serialized call: the memory stand-in for a transaction's isolation. */
  serialize<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
