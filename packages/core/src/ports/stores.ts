import type { ApiKeyLimits, ApiKeyRecord, KeyControls } from '../model/api-key.js';
import type { KeyBudgetStore } from './key-budget-store.js';
import type { MemberBudgetStore } from './member-budget-store.js';
import type { BalanceAlertRecord, PaymentMethod, TransactionRecord } from '../model/billing.js';
import type { Modality } from '../model/modality.js';
import type { OutputBodies, TaskOutputFile, TaskRecord, TaskStatus, TaskWarning } from '../model/task.js';
import type { ProducedUsage } from '../model/produced-usage.js';
import type { UpstreamMetadata } from './provider-adapter.js';
import type { UserRecord } from '../model/user.js';
import type { RunRequest } from '../model/run-request.schema.js';
import type { RouteAttempt } from '../model/routing.js';
import type { JsonObject, JsonValue } from '../util/json.js';

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

export interface UserStore {
  insert(user: { id: string; email: string }): Promise<UserRecord>;
  findById(id: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
}

export interface NewApiKey {
  readonly id: string;
  readonly userId: string;
  /** The member who owns the key; absent = `userId`. */
  readonly memberId?: string;
  readonly name: string;
  readonly secretHash: string;
  readonly mask: string;
  readonly limits: ApiKeyLimits;
  readonly ipWhitelist: readonly string[];
  /** Absent: NO_KEY_CONTROLS. */
  readonly controls?: KeyControls;
}

export interface ApiKeyPatch {
  readonly name?: string;
  readonly limits?: Partial<ApiKeyLimits>;
  readonly ipWhitelist?: readonly string[];
  readonly controls?: Partial<KeyControls>;
}

/** How fresh a key lookup must be. */
export interface KeyLookupOptions {
  /**
   * The caller accepts an answer from the store's cache, if it keeps one: at most the cache's TTL old, so
   * a key revoked or changed by another process may still be found (or found with its old limits and
   * whitelist) for that long. Only for requests that read, and for submissions, whose commit re-checks
   * the key under the lock a revoke takes. Default false: the store's current row.
   */
  readonly acceptCached?: boolean;
}

export interface KeyStore {
  /** Throws GatewayError('limit_exceeded') when the user already has MAX_KEYS_PER_USER active keys, even under concurrent inserts. */
  insert(key: NewApiKey): Promise<ApiKeyRecord>;
  /** An active (not revoked) key by the hash of its secret. */
  findActiveByHash(secretHash: string, options?: KeyLookupOptions): Promise<ApiKeyRecord | null>;
  findActiveForUser(id: string, userId: string): Promise<ApiKeyRecord | null>;
  listActiveForUser(userId: string): Promise<readonly ApiKeyRecord[]>;
  countActiveForUser(userId: string): Promise<number>;
  update(id: string, userId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;
  /** Marks the key revoked; false when no active key of that user has this id. */
  revoke(id: string, userId: string): Promise<boolean>;
  touchLastUsed(id: string, at: Date): Promise<void>;
  /**
   * True when the key is still active, holding a lock that makes a concurrent revoke wait for the
   * caller's transaction (PostgreSQL: SELECT ... FOR SHARE). Used where a request commits its effects.
   */
  lockActive(id: string): Promise<boolean>;
}

export interface NewTask {
  readonly id: string;
  readonly userId: string;
  /** The member who submitted it (the key's member, or the signed-in user); absent = `userId`. */
  readonly memberId?: string;
  readonly apiKeyId: string | null;
  readonly modelId: string;
  readonly modality: Modality;
  readonly request: RunRequest;
  readonly callbackUrl: string | null;
  readonly quotedMicro: number;
  readonly quotedCostMicro: number;
  /** Whether the task takes one of its user's running slots now (its job is enqueued in the same transaction). */
  readonly admitted: boolean;
}

/** What a successful task records, in the transaction that charges it. */
export interface TaskSuccess {
  readonly outputs: readonly TaskOutputFile[];
  /** The bytes of the inline outputs, written with the success (absent: none is inline). */
  readonly outputBodies?: OutputBodies;
  readonly warnings: readonly TaskWarning[];
  readonly chargedMicro: number;
  readonly costMicro: number;
  readonly reportedCostMicro: number | null;
  readonly usage: ProducedUsage;
  readonly metadata: UpstreamMetadata;
  readonly at: Date;
}

/** A user's unfinished tasks of one modality: those holding a running slot, and those queued behind them. */
export interface ActiveTaskCounts {
  readonly admitted: number;
  readonly queued: number;
}

/** Which of a user's tasks a list shows; an empty or absent list means any value. */
export interface TaskListFilter {
  readonly statuses?: readonly TaskStatus[];
  readonly modelIds?: readonly string[];
  readonly modalities?: readonly Modality[];
  /** Only the tasks this member submitted (a task without a member is its organization's own: `userId`). */
  readonly memberId?: string;
}

export interface TaskStore {
  insert(task: NewTask): Promise<TaskRecord>;
  /**
   * Appends one attempt to the task's attempt log; unless the attempt was skipped (its breaker open,
   * nothing sent), its route becomes the task's `routeId`. Written whatever the task's status.
   */
  recordRouteAttempt(id: string, attempt: RouteAttempt): Promise<void>;
  /** One page of the user's tasks matching the filter, newest first (created_at, then id, descending), and the total; without `outputBodies` (findById has them). */
  listForUser(userId: string, filter: TaskListFilter, page: number, perPage: number): Promise<Page<TaskRecord>>;
  findById(id: string): Promise<TaskRecord | null>;
  findForUser(id: string, userId: string): Promise<TaskRecord | null>;
  /**
   * waiting -> generating (or generating -> generating on a new attempt); counts the attempt. Null when ended.
   * The task as it now is: a worker's read of the task it picked is this one statement (UPDATE ... RETURNING).
   */
  markGenerating(id: string, at: Date): Promise<TaskRecord | null>;
  /**
   * Optional: undoes the markGenerating(id, claim.at) that returned attempt `claim.attempts`, when that
   * attempt could not start after all (its provider's call limits were full): the attempt is not counted,
   * and a task it moved from waiting (its startedAt is `claim.at`) is waiting again. Only while the task is
   * still generating under that attempt. Without it a deferred attempt stays counted.
   */
  releaseClaim?(id: string, claim: { readonly attempts: number; readonly at: Date }): Promise<void>;
  /**
   * Saves (or, with null, clears) the upstream handle of a long-running generation, and sets the task's
   * warnings to those its start reported (default none; a success adds the result's). A completion
   * webhook kept for the previous upstream job is cleared with it: it belongs to that job.
   */
  saveUpstreamHandle(id: string, handle: JsonValue | null, startWarnings?: readonly TaskWarning[]): Promise<void>;
  /**
   * Compare-and-set on the task's chain of status checks: when check `current` is still the task's latest
   * (`pollSeq === current`) and the task is generating, makes check `current + 1` the next one (older
   * checks are then stale) and records the progress the upstream reported. False otherwise: another check
   * or a webhook moved the chain first, or the task is not generating.
   */
  advanceCheck(id: string, current: number, progress: number | null): Promise<boolean>;
  /**
   * Keeps a verified completion webhook on a generating task that has none yet: one completion per
   * upstream job (a second delivery changes nothing). False when the task is not generating or already
   * has one.
   */
  saveWebhookPayload(id: string, payload: JsonValue): Promise<boolean>;
  /** generating -> success. False when the task was not generating (already ended). */
  markSuccess(id: string, result: TaskSuccess): Promise<boolean>;
  /**
   * Drops the bytes of the task's inline outputs (TaskRecord.outputBodies), as deleting its blob-store
   * files drops the others (a deleted stored response or video); its outputs are still listed.
   */
  deleteOutputBodies(id: string): Promise<void>;
  /** waiting|generating -> fail. False when the task had already ended. */
  markFail(id: string, errorMessage: string, at: Date, metadata?: UpstreamMetadata): Promise<boolean>;
  /** waiting -> fail for every task submitted with this key; returns the tasks it ended. */
  failWaitingForKey(apiKeyId: string, errorMessage: string, at: Date): Promise<readonly { id: string; userId: string; modality: Modality }[]>;
  /** Tasks not in an end state, oldest first. */
  listUnfinished(limit: number): Promise<readonly TaskRecord[]>;
  /** Counts of the user's unfinished tasks of one modality (call after the user's account row is locked). */
  activeCounts(userId: string, modality: Modality): Promise<ActiveTaskCounts>;
  /** Admits up to `slots` of the user's oldest queued (waiting, not admitted) tasks of this modality; returns their ids. */
  admitQueued(userId: string, modality: Modality, slots: number): Promise<readonly string[]>;
  /**
   * Unfinished tasks past their deadline plus a margin: generating since before `now - deadline - margin`,
   * or admitted but still waiting since before `now - deadline - margin - admittedGraceMs` (their job was lost).
   */
  listOverdue(now: Date, deadlinesMs: Readonly<Record<Modality, number>>, marginMs: number, admittedGraceMs: number, limit: number): Promise<readonly TaskRecord[]>;
  /** (user, modality) pairs that have queued tasks, for the sweep to re-check their admission. */
  listQueuedUsers(limit: number): Promise<readonly { userId: string; modality: Modality }[]>;
}

export interface AccountBalance {
  /** Sum of completed transactions, micro-credits. */
  readonly balanceMicro: number;
  /** Credits held by unfinished tasks, micro-credits. */
  readonly heldMicro: number;
}

export interface CreditEntry {
  readonly userId: string;
  readonly creditsMicro: number;
  readonly amountMicroUsd: number;
  readonly paymentMethod: PaymentMethod;
  readonly status: 'pending' | 'completed';
  readonly description: string | null;
  readonly externalRef?: string | null;
}

/** The ledger. Every method runs inside the caller's unit of work. */
export interface BillingLedger {
  /** Creates the account row of a new user (zero balance). */
  openAccount(userId: string): Promise<void>;
  getBalance(userId: string): Promise<AccountBalance>;
  /** Locks the user's account row until the unit of work ends (serializes admission with submissions). */
  lockAccount(userId: string): Promise<void>;
  /** Holds credits for a task; throws GatewayError('insufficient_credits') when balance - held < amount. */
  hold(userId: string, taskId: string, amountMicro: number): Promise<void>;
  /** Charges min(charge, held) as one completed `usage` transaction and releases the rest. Idempotent. */
  settle(taskId: string, chargeMicro: number, description: string): Promise<TransactionRecord | null>;
  /** Releases a task's hold without charging. Idempotent. */
  release(taskId: string): Promise<void>;
  /**
   * Adds a transaction; a completed one changes the balance at once. A pending purchase beyond
   * MAX_PENDING_TOPUPS_PER_USER throws GatewayError('limit_exceeded'), even under concurrent inserts.
   */
  record(entry: CreditEntry): Promise<TransactionRecord>;
  /**
   * pending (or failed: an expired purchase the processor reports paid after all) -> completed, exactly
   * once; null when it is neither, or is not a purchase.
   */
  complete(transactionId: string): Promise<TransactionRecord | null>;
  /** pending -> failed (a purchase that cannot be paid any more); null when not pending. */
  fail(transactionId: string): Promise<TransactionRecord | null>;
  findTransaction(id: string): Promise<TransactionRecord | null>;
  listTransactions(userId: string, page: number, perPage: number): Promise<Page<TransactionRecord>>;
}

export interface AlertStore {
  /** Throws GatewayError('limit_exceeded') when the user already has MAX_ALERTS_PER_USER alerts, even under concurrent inserts. */
  insert(alert: { id: string; userId: string; thresholdMicro: number; armed: boolean }): Promise<BalanceAlertRecord>;
  listForUser(userId: string): Promise<readonly BalanceAlertRecord[]>;
  findById(id: string): Promise<BalanceAlertRecord | null>;
  countForUser(userId: string): Promise<number>;
  delete(id: string, userId: string): Promise<boolean>;
  setArmed(id: string, armed: boolean): Promise<void>;
  /**
   * Optional: applies the balance-alert rule where this store keeps it (PostgreSQL: gengate_check_alerts,
   * migration 018) to the user's current balance, mail jobs included. checkBalanceAlerts then leaves the
   * rule to it; without it, checkBalanceAlerts applies the rule over the methods above (memory stores).
   */
  checkBalance?(userId: string): Promise<void>;
}

/** Remembered run responses per (user, Idempotency-Key), valid for 24 hours. */
export interface IdempotencyStore {
  /** The unexpired record for this key, locked until the caller's transaction ends. */
  find(userId: string, key: string): Promise<{ requestHash: string; response: JsonObject } | null>;
  /** Stores the response; false when another request stored one for the same key first. */
  save(userId: string, key: string, requestHash: string, response: JsonObject): Promise<boolean>;
}

/** Jobs, enqueued inside the same unit of work as the state change that needs them. */
export interface JobQueue {
  /** A generation step: the upstream call of a one-shot model, or the start of a long-running one. */
  enqueueGeneration(taskId: string, options?: { startAfterMs?: number; providerId?: string }): Promise<void>;
  /** A status check of a long-running upstream job, after a delay. */
  enqueueStatusCheck(taskId: string, options: { checkNumber: number; startAfterMs: number; providerId?: string }): Promise<void>;
  /** The task's callback; grouped by its user so one user's slow receivers cannot take every delivery slot. */
  enqueueCallback(taskId: string, userId: string): Promise<void>;
  enqueueAlertMail(alertId: string, balanceMicro: number): Promise<void>;
  /** The one mail of a key's period whose spend reached the key's soft threshold (on the alert-mail queue). */
  enqueueKeyBudgetMail(mail: KeyBudgetMail): Promise<void>;
}

/** The payload of a key's soft-threshold mail. */
export interface KeyBudgetMail {
  readonly keyId: string;
  readonly userId: string;
  /** ISO 8601 start of the period. */
  readonly periodStart: string;
  readonly spentMicro: number;
  readonly limitMicro: number;
}

/** The stores bound to one database transaction. */
export interface TransactionScope {
  readonly users: UserStore;
  readonly keys: KeyStore;
  readonly tasks: TaskStore;
  readonly ledger: BillingLedger;
  readonly alerts: AlertStore;
  readonly jobs: JobQueue;
  readonly idempotency: IdempotencyStore;
  readonly keyBudgets: KeyBudgetStore;
  /** Members' spend per budget period, and their limits (docs/organizations.md). */
  readonly memberBudgets: MemberBudgetStore;
}

/** Runs a function in one database transaction: all of its writes commit together or not at all. */
export interface UnitOfWork {
  run<T>(fn: (tx: TransactionScope) => Promise<T>): Promise<T>;
}
