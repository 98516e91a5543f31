import { initial } from './001-initial.js';
import { rateLimits } from './002-rate-limits.js';
import { callbacks } from './003-callbacks.js';
import { idempotency } from './004-idempotency.js';
import { tenantCaps } from './005-tenant-caps.js';
import { secretsAndSweep } from './006-secrets-and-sweep.js';
import { taskExecutionV2 } from './008-task-execution-v2.js';
import { providerCallLeases } from './009-provider-call-leases.js';
import { webhookPayloads } from './010-webhook-payloads.js';
import { dashboard } from './011-dashboard.js';
import { submitTaskFunction } from './012-submit-task-function.js';
import { replaceableKeyStore } from './014-replaceable-key-store.js';
import { retention } from './016-retention.js';
import { signInLinks } from './017-sign-in-links.js';
import { moneyRules } from './018-money-rules.js';
import { keyBudgets } from './019-key-budgets.js';
import { settlementOffAccountRow } from './020-settlement-off-account-row.js';
import { routeAttempts } from './021-route-attempts.js';
import { routeHealth } from './022-route-health.js';
import { usageRollups } from './023-usage-rollups.js';
import { traceContext } from './024-trace-context.js';
import { organizations } from './025-organizations.js';
import { memberBudgets } from './026-member-budgets.js';
import { usageMembersAndKeyPeriodChange } from './027-usage-members-and-key-period-change.js';
import { organizationWebhookSecret } from './028-organization-webhook-secret.js';
import { spendPending } from './029-spend-pending.js';
import { inlineOutputs } from './030-inline-outputs.js';
import { dropWaitingByKeyIndex } from './031-drop-waiting-by-key-index.js';
import { usagePending } from './032-usage-pending.js';
import { spendHeldBySubmission } from './033-spend-held-by-submission.js';
import type { Migration } from './migration.js';

/**
 * Every migration, in order: tables, columns, indexes, views, triggers and backfills.
 * Append migrations for tables; edit functions/ for function bodies. Never edit an applied migration, with
 * one exception made once: the function bodies that used to be re-created by migration after migration
 * (005, 008, 012, 018, 019, 020, 023, 024, 025, 026, 027) were removed from them when functions/ became each
 * function's one home (the function set, defined by runMigrations before and after the migrations:
 * function-set.ts, docs/architecture.md "Where the money rules live"). A migration must not define a function.
 */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  rateLimits,
  callbacks,
  idempotency,
  tenantCaps,
  secretsAndSweep,
  taskExecutionV2,
  providerCallLeases,
  webhookPayloads,
  dashboard,
  submitTaskFunction,
  replaceableKeyStore,
  retention,
  signInLinks,
  moneyRules,
  keyBudgets,
  settlementOffAccountRow,
  routeAttempts,
  routeHealth,
  usageRollups,
  traceContext,
  organizations,
  memberBudgets,
  usageMembersAndKeyPeriodChange,
  organizationWebhookSecret,
  spendPending,
  inlineOutputs,
  dropWaitingByKeyIndex,
  usagePending,
  spendHeldBySubmission,
];
export type { Migration };
