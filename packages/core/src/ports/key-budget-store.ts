/**
 * What a key has used in one budget period, kept beside the ledger (the holds and charges of the key's
 * tasks, by the period each hold was taken in). Used inside the submission's unit of work, after the
 * account lock, so concurrent submissions of one key see each other's holds (the rules:
 * `keys/key-admission.ts`; on PostgreSQL the same rules are gengate_key_budget_admit of migration 019).
 */
export interface KeyBudgetStore {
  /**
   * Held (unsettled) plus charged micro-credits of the key's tasks whose hold was taken in the period
   * starting at `periodStart`, and the key's tasks now `waiting` or `generating`.
   */
  usage(keyId: string, periodStart: Date): Promise<{ spentMicro: number; activeTasks: number }>;
  /** Ties the task's open hold to the key and period (its amount, and later its charge, count there). */
  recordHold(taskId: string, keyId: string, periodStart: Date): Promise<void>;
  /** Marks the period's soft-threshold mail as due; true only the first time per key and period. */
  markSoftThresholdReached(keyId: string, periodStart: Date): Promise<boolean>;
}
