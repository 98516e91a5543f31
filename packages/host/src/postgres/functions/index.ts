import { admitAfterEnd } from './admit-after-end.js';
import { admitQueued } from './admit-queued.js';
import { checkAlerts } from './check-alerts.js';
import { completeJob, removeJob } from './end-job.js';
import { countActiveTasks } from './count-active-tasks.js';
import { enforceUserCap } from './enforce-user-cap.js';
import { enqueueJob, enqueueJobs } from './enqueue-job.js';
import { finishFail } from './finish-fail.js';
import { finishSuccess } from './finish-success.js';
import { finishSuccesses } from './finish-successes.js';
import { foldPending } from './fold-pending.js';
import { keyBudgetAdmit } from './key-budget-admit.js';
import { keyBudgetPeriodChanged } from './key-budget-period-changed.js';
import { keyMemberDefault } from './key-member-default.js';
import { keyPeriodStart } from './key-period-start.js';
import { memberBudgetAdmit } from './member-budget-admit.js';
import { notifyTaskEnded } from './notify-task-ended.js';
import { personalOrganization } from './personal-organization.js';
import { poll } from './poll.js';
import { recountActiveTasks } from './recount-active-tasks.js';
import type { SqlFunction } from './sql-function.js';
import { foldSpendPendingFunction, keySpendCharge, keySpendHold, memberSpendCharge, memberSpendHold } from './spend-triggers.js';
import { submitLockedTask, submitTask } from './submit-task.js';
import { submitTaskTraced } from './submit-task-traced.js';
import { submitTasks } from './submit-tasks.js';
import { usageRollup } from './usage-rollup.js';
import { foldUsagePending } from './fold-usage-pending.js';

/**
 * Every SQL function of gengate, each in its current form and defined only here (one file each), in
 * dependency order: a function after the ones it calls. To change a rule, edit its file: the next start
 * replaces the database's definitions (runMigrations, function-set.ts), like Flyway's repeatable migrations.
 * To add a function, add its file and list it here; to retire one, remove it here (the next start drops it).
 * Tables, columns, indexes, triggers and backfills stay in migrations/ (versioned, append only).
 */
export const FUNCTIONS: readonly SqlFunction[] = [
  // Trigger functions of the task and account rows (migrations 005, 008, 012, 020).
  enforceUserCap,
  notifyTaskEnded,
  countActiveTasks,
  // The account's pending deltas (020) and the counts' repair (maintenance).
  foldPending,
  recountActiveTasks,
  // pg-boss jobs written by the money rules (018).
  enqueueJob,
  enqueueJobs,
  completeJob,
  removeJob,
  // Admission of queued tasks and balance alerts (018, 020).
  admitQueued,
  admitAfterEnd,
  checkAlerts,
  // Per-key spend controls (019, 027).
  keyPeriodStart,
  keySpendHold,
  keySpendCharge,
  keyBudgetAdmit,
  keyBudgetPeriodChanged,
  // Member spend limits (026).
  memberSpendHold,
  memberSpendCharge,
  memberBudgetAdmit,
  // The spend rows' pending rows folded by each submission (033).
  foldSpendPendingFunction,
  // The submission and the task's ends: the money rules' entry points (018, 019, 020, 024, 026); a
  // user's submissions of one event-loop turn in one transaction (gengate_submit_tasks locks the account row
  // once, then calls gengate_submit_locked_task per item; gengate_submit_task locks it, then calls it once).
  submitLockedTask,
  submitTask,
  submitTaskTraced,
  submitTasks,
  finishSuccesses,
  finishSuccess,
  finishFail,
  // The poll: a batch of tasks and their keys, read by primary key.
  poll,
  // Usage rollups (023, 027; pending rows and their fold, 032) and organizations (025).
  usageRollup,
  foldUsagePending,
  personalOrganization,
  keyMemberDefault,
];
