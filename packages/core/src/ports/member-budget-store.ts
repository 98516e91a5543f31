import type { BudgetPeriod } from '../model/api-key.js';

/** A member's spend limit in an organization (organization_members). */
export interface MemberSpendLimit {
  /** Micro-credits per period (held + charged); null = none. */
  readonly spendLimitMicro: number | null;
  readonly budgetPeriod: BudgetPeriod;
}

/**
 * What a member of an organization has used in one budget period, kept beside the ledger (the holds and
 * charges of the member's tasks, by the period each hold was taken in). Used inside the submission's unit
 * of work, after the organization's account lock, so concurrent submissions of one member (over any of
 * their keys) see each other's holds (the rules: `members/member-admission.ts`; on PostgreSQL the same
 * rules are gengate_member_budget_admit of migration 026).
 */
export interface MemberBudgetStore {
  /** The member's limit and period in the organization; null when they are not a member of it. */
  limitOf(organizationId: string, memberId: string): Promise<MemberSpendLimit | null>;
  /** Held (unsettled) plus charged micro-credits of the member's tasks whose hold was taken in the period starting at `periodStart`. */
  spent(organizationId: string, memberId: string, periodStart: Date): Promise<number>;
  /** Ties the task's open hold to the member and period (its amount, and later its charge, count there). */
  recordHold(taskId: string, memberId: string, periodStart: Date): Promise<void>;
}
