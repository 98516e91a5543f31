import type { Modality } from '../../model/modality.js';
import type { TaskStatus } from '../../model/task.js';
import type { Page } from '../../ports/stores.js';

export const USER_ROLES = ['user', 'operator'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A user as an operator sees them. */
export interface UserSummary {
  readonly id: string;
  readonly email: string;
  readonly role: UserRole;
  readonly createdAt: Date;
  readonly balanceMicro: number;
  readonly heldMicro: number;
  /** Credits granted by operators (sum of completed `grant` transactions), micro-credits. */
  readonly grantedMicro: number;
  readonly activeKeys: number;
  readonly revokedKeys: number;
  readonly tasks: number;
}

/** Failed tasks of one model since a moment. */
export interface FailureGroup {
  readonly modelId: string;
  readonly failures: number;
  readonly lastAt: Date;
  readonly lastMessage: string;
}

export interface TaskCount {
  readonly modality: Modality;
  readonly status: TaskStatus;
  /** Waiting tasks: admitted (job queued) or queued behind the user's running ones; null for other statuses. */
  readonly admitted: boolean | null;
  readonly count: number;
}

/** Roles and the operator's read views over users and tasks. */
export interface AccountDirectory {
  /** The user's role, or null when there is no such user. */
  roleOf(userId: string): Promise<UserRole | null>;
  /** Sets the role of the user with this e-mail (case-insensitive); null when there is none. */
  setRole(email: string, role: UserRole): Promise<{ id: string; email: string; role: UserRole } | null>;
  /** Users whose e-mail or id contains `search` (case-insensitive; empty = all), newest first. */
  searchUsers(search: string, page: number, perPage: number): Promise<Page<UserSummary>>;
  findUser(userId: string): Promise<UserSummary | null>;
  /** Failed tasks finished at or after `since`, grouped by model, most failures first. */
  recentFailures(since: Date, limit: number): Promise<readonly FailureGroup[]>;
  /** Unfinished tasks (waiting, generating) counted by modality, status and admission. */
  unfinishedTaskCounts(): Promise<readonly TaskCount[]>;
}
