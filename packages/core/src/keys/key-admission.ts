import { keyControlsOf, type ApiKeyRecord, type KeyControls, type KeyRefusal } from '../model/api-key.js';
import type { Modality } from '../model/modality.js';
import type { TransactionScope } from '../ports/stores.js';
import { budgetPeriodStart, budgetResetsAt } from './key-budget-period.js';

/** The model/provider/modality allow-lists (absent = all): the first list the submission is outside of. */
export function allowListRefusal(c: KeyControls, model: { id: string; provider: string; modality: Modality }): KeyRefusal | null {
  if (c.allowedModels && !c.allowedModels.includes(model.id)) return { outcome: 'model_not_allowed', allowed: c.allowedModels };
  if (c.allowedProviders && !c.allowedProviders.includes(model.provider)) return { outcome: 'provider_not_allowed', allowed: c.allowedProviders };
  if (c.allowedModalities && !c.allowedModalities.includes(model.modality)) return { outcome: 'modality_not_allowed', allowed: c.allowedModalities };
  return null;
}

/** The spend at which the period's one soft-threshold mail is due: floor(limit × percent / 100) micro-credits. */
export function softThresholdMicro(c: KeyControls): number | null {
  if (c.spendLimitMicro === null || c.softThresholdPercent === null) return null;
  // In BigInt: limit × percent may pass 2^53 (a limit of 10^9 credits is 10^15 micro-credits).
  return Number((BigInt(c.spendLimitMicro) * BigInt(c.softThresholdPercent)) / 100n);
}

/**
 * A submission's checks and writes on its key, inside the unit of work that holds its credits (after
 * the account lock): allow-lists, the concurrency cap (tasks waiting or generating), the spend limit of
 * the period `at` falls in (held + charged + this quote must stay within it), then, once the caller's
 * hold is written (`afterHold`), the hold tied to the key's period and the period's one soft-threshold
 * mail. The PostgreSQL twin is gengate_key_budget_admit (migration 019): change both together.
 */
export async function admitOnKey(
  tx: TransactionScope,
  key: ApiKeyRecord,
  task: { readonly modelId: string; readonly provider: string; readonly modality: Modality; readonly quotedMicro: number },
  at: Date,
): Promise<{ refusal: KeyRefusal } | { afterHold(taskId: string): Promise<void> }> {
  const c = keyControlsOf(key);
  const listed = allowListRefusal(c, { id: task.modelId, provider: task.provider, modality: task.modality });
  if (listed) return { refusal: listed };
  const periodStart = budgetPeriodStart(c.budgetPeriod, at);
  const usage = await tx.keyBudgets.usage(key.id, periodStart);
  if (c.maxConcurrentTasks !== null && usage.activeTasks >= c.maxConcurrentTasks) {
    return { refusal: { outcome: 'key_concurrency_exceeded', limit: c.maxConcurrentTasks } };
  }
  const after = usage.spentMicro + task.quotedMicro;
  if (c.spendLimitMicro !== null && after > c.spendLimitMicro) {
    return { refusal: { outcome: 'key_budget_exceeded', limitMicro: c.spendLimitMicro, spentMicro: usage.spentMicro, resetsAt: budgetResetsAt(c.budgetPeriod, at) } };
  }
  return {
    async afterHold(taskId) {
      await tx.keyBudgets.recordHold(taskId, key.id, periodStart);
      const threshold = softThresholdMicro(c);
      if (threshold !== null && c.spendLimitMicro !== null && after >= threshold && (await tx.keyBudgets.markSoftThresholdReached(key.id, periodStart))) {
        await tx.jobs.enqueueKeyBudgetMail({ keyId: key.id, userId: key.userId, periodStart: periodStart.toISOString(), spentMicro: after, limitMicro: c.spendLimitMicro });
      }
    },
  };
}
