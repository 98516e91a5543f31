import type { ApiKeyRecord } from '../model/api-key.js';
import type { BalanceAlertRecord, TransactionRecord } from '../model/billing.js';
import type { TaskRecord } from '../model/task.js';
import type { UserRecord } from '../model/user.js';
import type { InvitationRecord, MembershipRecord, OrganizationRecord } from '../model/organization.js';
import type { KeyBudgetMail } from '../ports/stores.js';
import type { JsonObject } from '../util/json.js';

/** Rows are never changed in place: a write sets a new object (copy-on-write units of work compare rows by identity). */
export interface MemoryHold {
  readonly userId: string;
  readonly taskId: string;
  readonly amountMicro: number;
  readonly state: 'held' | 'settled' | 'released';
  /** The API key and budget period (ISO start) the hold counts against (KeyBudgetStore.recordHold). */
  readonly keyId?: string;
  readonly keyPeriodStart?: string;
}

export interface MemoryJob {
  queue: 'generate' | 'status-check' | 'callback' | 'alert-mail';
  payload: { taskId?: string; alertId?: string; balanceMicro?: number; checkNumber?: number; providerId?: string; keyMail?: KeyBudgetMail };
  startAfterMs: number;
  /** Date.now() when the job may start. */
  availableAt: number;
}

/** A membership row: the e-mail is the user's, read with it. */
export type MemoryMember = Omit<MembershipRecord, 'email'>;

/** The key of a membership row in MemoryDatabase.members. */
export const memberKey = (organizationId: string, userId: string): string => `${organizationId}:${userId}`;

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
  /** `keyId:periodStart` of each key period whose soft-threshold mail was enqueued. */
  readonly keySoftAlerts = new Map<string, true>();
  readonly organizations = new Map<string, OrganizationRecord>();
  /** By memberKey(organizationId, userId). */
  readonly members = new Map<string, MemoryMember>();
  readonly invitations = new Map<string, InvitationRecord>();
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * A unit of work, copy-on-write: `fn` runs after every earlier unit of work (the memory stand-in for
   * isolation) against a private copy of the rows. When it resolves, what it changed is applied to this
   * database at once (commit); when it throws, the copy is dropped and nothing it wrote was ever visible
   * (rollback). Rows written meanwhile outside any unit of work are kept unless the unit wrote the same row.
   */
  transaction<T>(fn: (copy: MemoryDatabase) => Promise<T>): Promise<T> {
    const run = async () => {
      const base = this.copy();
      const work = this.copy();
      const result = await fn(work);
      this.apply(base, work);
      return result;
    };
    const next = this.tail.then(run, run);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Another database holding the same rows (rows are immutable objects, so sharing them is safe). */
  private copy(): MemoryDatabase {
    const c = new MemoryDatabase();
    for (const [k, v] of this.users) c.users.set(k, v);
    for (const [k, v] of this.keys) c.keys.set(k, v);
    for (const [k, v] of this.tasks) c.tasks.set(k, v);
    for (const [k, v] of this.holds) c.holds.set(k, v);
    for (const [k, v] of this.alerts) c.alerts.set(k, v);
    for (const [k, v] of this.idempotency) c.idempotency.set(k, v);
    for (const [k, v] of this.keySoftAlerts) c.keySoftAlerts.set(k, v);
    for (const [k, v] of this.organizations) c.organizations.set(k, v);
    for (const [k, v] of this.members) c.members.set(k, v);
    for (const [k, v] of this.invitations) c.invitations.set(k, v);
    for (const a of this.accounts) c.accounts.add(a);
    c.transactions.push(...this.transactions);
    c.jobs.push(...this.jobs);
    return c;
  }

  /** Applies what `work` changed relative to `base` (rows set, replaced or deleted; entries appended). */
  private apply(base: MemoryDatabase, work: MemoryDatabase): void {
    const maps = <K, V>(target: Map<K, V>, from: Map<K, V>, to: Map<K, V>) => {
      for (const [k, v] of to) if (from.get(k) !== v) target.set(k, v);
      for (const k of from.keys()) if (!to.has(k)) target.delete(k);
    };
    maps(this.users, base.users, work.users);
    maps(this.keys, base.keys, work.keys);
    maps(this.tasks, base.tasks, work.tasks);
    maps(this.holds, base.holds, work.holds);
    maps(this.alerts, base.alerts, work.alerts);
    maps(this.idempotency, base.idempotency, work.idempotency);
    maps(this.keySoftAlerts, base.keySoftAlerts, work.keySoftAlerts);
    maps(this.organizations, base.organizations, work.organizations);
    maps(this.members, base.members, work.members);
    maps(this.invitations, base.invitations, work.invitations);
    for (const a of work.accounts) if (!base.accounts.has(a)) this.accounts.add(a);
    for (const a of base.accounts) if (!work.accounts.has(a)) this.accounts.delete(a);
    // Transactions are appended or replaced by a new object at the same index; never removed.
    work.transactions.forEach((t, i) => {
      const before = base.transactions[i];
      if (before === t) return;
      const at = before ? this.transactions.indexOf(before) : -1;
      if (at >= 0) this.transactions[at] = t;
      else this.transactions.push(t);
    });
    // Jobs are only enqueued inside a unit of work (workers take them outside one).
    for (const job of work.jobs.slice(base.jobs.length)) this.jobs.push(job);
  }
}
