import type { AlertStore, BillingLedger, IdempotencyStore, KeyStore, TaskStore, UserStore } from '@gengate/core';
import type { Queryable } from './queryable.js';

/**
 * A store that replaces gengate's own. A factory is called with the connection of each scope: the pool
 * for `stores`, and inside `unitOfWork.run` the transaction's client, so a store whose statements use it
 * commits and rolls back with gengate's writes. An instance is used as it is in every scope: its writes
 * are its own, outside gengate's transactions (right for a store on another system, e.g. keys kept by an
 * identity service).
 */
export type StoreReplacement<T> = T | ((db: Queryable) => T);

/** The stores that can be replaced (the job queue is pg-boss's, through the transaction's connection). */
export interface StoreReplacements {
  readonly users?: StoreReplacement<UserStore>;
  readonly keys?: StoreReplacement<KeyStore>;
  readonly tasks?: StoreReplacement<TaskStore>;
  readonly ledger?: StoreReplacement<BillingLedger>;
  readonly alerts?: StoreReplacement<AlertStore>;
  readonly idempotency?: StoreReplacement<IdempotencyStore>;
}

/** Whether any store is replaced (then the money rules run over the unit of work, not in SQL). */
export function anyReplaced(replace: StoreReplacements): boolean {
  return Object.values(replace).some((store) => store !== undefined);
}
