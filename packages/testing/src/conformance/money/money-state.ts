import type { RawMoneyState } from './money-harness.js';

/** Ids replaced by their order of creation (u0, u1, t0, t1...), so two implementations' states compare. */
export interface IdNames {
  readonly users: ReadonlyMap<string, string>;
  readonly tasks: ReadonlyMap<string, string>;
}

const nameOf = (names: ReadonlyMap<string, string>, id: string | null): string | null => (id === null ? null : (names.get(id) ?? `unknown:${id}`));
const sorted = <T>(rows: readonly T[]): T[] => rows.map((r) => [JSON.stringify(r), r] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
/** A charge of nothing is -0 in JavaScript (-credits) and 0 in SQL: the same amount. */
const zeroed = (n: number): number => (n === 0 ? 0 : n);
/** t2 before t10; rows without a named task last. */
const byTask = <T extends { task: string | null }>(rows: readonly T[]): T[] => sorted(rows).sort((a, b) => ordinal(a.task) - ordinal(b.task));
const ordinal = (name: string | null): number => (name !== null && /^t\d+$/.test(name) ? Number(name.slice(1)) : Number.MAX_SAFE_INTEGER);

/** A user's money and tasks with ids named and timestamps left out; rows in a canonical order. */
export interface UserMoneyState {
  readonly balanceMicro: number;
  readonly heldMicro: number;
  readonly transactions: readonly { task: string | null; creditsMicro: number; amountMicroUsd: number; paymentMethod: string; status: string; description: string | null }[];
  readonly holds: readonly { task: string | null; amountMicro: number; state: string }[];
  readonly tasks: readonly { task: string | null; status: string; admitted: boolean | null; attempts: number; quotedMicro: number; chargedMicro: number | null; errorMessage: string | null }[];
  readonly alerts: readonly { thresholdMicro: number; armed: boolean }[];
  /** Queued jobs: `generate:t3` (of waiting tasks), `callback:t3`, `alert-mail`, `key-budget-mail` (one entry per job). */
  readonly jobs: readonly string[];
  /** The user's active keys as GET /api-keys shows their budget (filled by MoneyDriver.state; none from the rows alone). */
  readonly keys: readonly {
    spendLimit: number | null;
    budgetPeriod: string;
    spent: number;
    remaining: number | null;
    resetsAt: string | null;
    concurrentTasks: number;
  }[];
  /**
   * The user's figures as the member of their personal organization (the Member object's spend fields;
   * filled by MoneyDriver.state where the implementation binds an OrganizationStore; null otherwise).
   */
  readonly member: { spendLimit: number | null; budgetPeriod: string; spent: number; remaining: number | null; resetsAt: string | null } | null;
}

export type MoneyState = Readonly<Record<string, UserMoneyState>>;

export function normaliseMoneyState(raw: RawMoneyState, names: IdNames): MoneyState {
  const out: Record<string, UserMoneyState> = {};
  for (const [userId, user] of names.users) {
    const account = raw.accounts.find((a) => a.userId === userId);
    out[user] = {
      balanceMicro: account?.balanceMicro ?? 0,
      heldMicro: account?.heldMicro ?? 0,
      transactions: sorted(
        raw.transactions
          .filter((t) => t.userId === userId)
          .map((t) => ({ task: nameOf(names.tasks, t.taskId), creditsMicro: zeroed(t.creditsMicro), amountMicroUsd: zeroed(t.amountMicroUsd), paymentMethod: t.paymentMethod, status: t.status, description: t.description })),
      ),
      holds: byTask(raw.holds.filter((h) => h.userId === userId).map((h) => ({ task: nameOf(names.tasks, h.taskId), amountMicro: h.amountMicro, state: h.state }))),
      tasks: byTask(
        raw.tasks
          .filter((t) => t.userId === userId)
          .map((t) => ({
            task: nameOf(names.tasks, t.id),
            status: t.status,
            // Whether a task holds a running slot means something only while it is unfinished (the memory store
            // clears the flag when a task ends, PostgreSQL keeps it; nothing reads it afterwards).
            admitted: t.status === 'waiting' || t.status === 'generating' ? t.admitted : null,
            attempts: t.attempts,
            quotedMicro: t.quotedMicro,
            chargedMicro: t.chargedMicro,
            errorMessage: t.errorMessage,
          })),
      ),
      alerts: sorted(raw.alerts.filter((a) => a.userId === userId).map((a) => ({ thresholdMicro: a.thresholdMicro, armed: a.armed }))).sort(
        (a, b) => a.thresholdMicro - b.thresholdMicro || Number(a.armed) - Number(b.armed),
      ),
      jobs: raw.jobs
        .filter((j) => j.userId === userId || (j.taskId !== null && raw.tasks.some((t) => t.id === j.taskId && t.userId === userId)))
        // A generation job is a money rule's output only while its task waits (admitted: one; queued: none).
        // Once the worker has started the task, whether that job is still listed is the queue's
        // bookkeeping (a worker holds it, a success may complete it), and no worker runs here.
        .filter((j) => j.queue !== 'generate' || raw.tasks.some((t) => t.id === j.taskId && t.status === 'waiting'))
        .map((j) => (j.taskId === null ? j.queue : `${j.queue}:${nameOf(names.tasks, j.taskId) ?? ''}`))
        .sort(),
      keys: [],
      member: null,
    };
  }
  return out;
}

/**
 * The ledger invariant, per user: the balance is the sum of completed transactions, the held amount the
 * sum of open holds, the available balance (balance - held) is never negative, every open hold belongs
 * to an unfinished task and every unfinished task has one. Returns the violations (must be none).
 */
export function ledgerViolations(state: MoneyState): string[] {
  const found: string[] = [];
  for (const [user, s] of Object.entries(state)) {
    const sum = s.transactions.filter((t) => t.status === 'completed').reduce((n, t) => n + t.creditsMicro, 0);
    const held = s.holds.filter((h) => h.state === 'held').reduce((n, h) => n + h.amountMicro, 0);
    if (s.balanceMicro !== sum) found.push(`${user}: balance ${s.balanceMicro} but completed transactions sum to ${sum}`);
    if (s.heldMicro !== held) found.push(`${user}: held ${s.heldMicro} but open holds sum to ${held}`);
    if (s.balanceMicro - s.heldMicro < 0) found.push(`${user}: negative available balance ${s.balanceMicro - s.heldMicro}`);
    for (const t of s.tasks) {
      const open = s.holds.some((h) => h.task === t.task && h.state === 'held');
      const unfinished = t.status === 'waiting' || t.status === 'generating';
      if (open !== unfinished) found.push(`${user}: task ${t.task} is ${t.status} with${open ? '' : 'out'} an open hold`);
    }
    // A key's remaining budget is its limit less what it spent, never below 0 (a limit lowered below the
    // period's spend leaves it at 0; overshooting by submissions is what the contract's examples refuse).
    for (const [i, k] of s.keys.entries()) {
      const expected = k.spendLimit === null ? null : Math.max(0, Math.round((k.spendLimit - k.spent) * 1e6) / 1e6);
      if (k.remaining !== expected) found.push(`${user}: key ${i} has ${k.remaining} remaining of a ${k.spendLimit} limit with ${k.spent} spent`);
      if (k.spent < 0 || k.concurrentTasks < 0) found.push(`${user}: key ${i} spent ${k.spent} with ${k.concurrentTasks} tasks`);
    }
    // Likewise a member's remaining limit.
    if (s.member) {
      const m = s.member;
      const expected = m.spendLimit === null ? null : Math.max(0, Math.round((m.spendLimit - m.spent) * 1e6) / 1e6);
      if (m.remaining !== expected || m.spent < 0) found.push(`${user}: member has ${m.remaining} remaining of a ${m.spendLimit} limit with ${m.spent} spent`);
    }
    for (const t of s.transactions.filter((x) => x.paymentMethod === 'usage')) {
      const hold = s.holds.find((h) => h.task === t.task);
      if (!hold || hold.state !== 'settled' || -t.creditsMicro > hold.amountMicro) found.push(`${user}: usage charge ${-t.creditsMicro} of ${t.task} beyond its hold`);
    }
  }
  return found;
}
