import { isUpstreamError } from '../errors/upstream-error.js';
import type { StartedJob } from '../ports/provider-adapter.js';
import type { Clock } from '../ports/system.js';
import type { TaskStore, UnitOfWork } from '../ports/stores.js';
import { fallsBack } from '../routing/fallback-rule.js';
import { pollDelayMs } from '../execution/adapter-step.js';
import type { ExecuteTaskOptions } from '../execution/execution-options.js';
import type { ExecuteOutcome, Prepared } from './prepared-task.js';
import { retryDelayMs } from '../execution/retry-policy.js';

/**
 * Schedules the check after check `current` (compare-and-set on the task's sequence): when a webhook or
 * another check moved the chain on meanwhile, this one is stale and schedules nothing. Check numbers only
 * grow, also across upstream jobs (a number is never reused); a new job's first check waits as a first check.
 */
export async function scheduleCheck(uow: UnitOfWork, p: Prepared, current: number, progress: number | null, hintMs: number | null, started?: StartedJob): Promise<ExecuteOutcome> {
  const checkNumber = current + 1;
  const scheduled = await uow.run(async (tx) => {
    // The start's warnings are stored with its handle: the result's are added to them at success.
    if (started !== undefined) await tx.tasks.saveUpstreamHandle(p.task.id, started.handle, started.warnings);
    if (!(await tx.tasks.advanceCheck(p.task.id, current, progress))) return false;
    await tx.jobs.enqueueStatusCheck(p.task.id, {
      checkNumber,
      startAfterMs: pollDelayMs(p.adapter, p.model, started !== undefined ? 1 : checkNumber, hintMs),
      providerId: p.model.provider,
    });
    return true;
  });
  return scheduled ? 'waiting' : 'skipped';
}

export interface RetryDeps {
  readonly tasks: TaskStore;
  readonly uow: UnitOfWork;
  readonly clock: Clock;
  readonly options: ExecuteTaskOptions;
}

/**
 * A retryable upstream failure within the attempts and the deadline starts a new attempt ('retrying', or
 * 'skipped' when the task has meanwhile left generating); null when the failure ends the task.
 */
export async function scheduleRetry({ tasks, uow, clock, options }: RetryDeps, p: Prepared, error: unknown, deadlineAt: number): Promise<ExecuteOutcome | null> {
  const fresh = await tasks.findById(p.task.id);
  const attempts = fresh?.attempts ?? p.task.attempts;
  // Another route may take the task: the plan has more candidates and the policy falls back on this error
  // (the retryable classes; a refusal only where the model's policy says so).
  const candidates = p.plan?.candidates ?? [];
  const toOther = candidates.length > 1 && fallsBack(error, p.plan?.policy ?? {});
  if (isUpstreamError(error) && (error.isRetryable || toOther) && attempts < options.scheduling.maxAttempts) {
    // Attempts are counted across routes. A route not tried yet is tried at once; coming back to one that
    // failed waits the backoff (Retry-After honoured).
    const failedRoutes = new Set((fresh?.routeAttempts ?? []).filter((a) => a.outcome === 'error').map((a) => a.route));
    const untried = toOther && candidates.some((c) => !failedRoutes.has(c.routeId));
    const delay = untried ? 0 : retryDelayMs(attempts, error.retryAfterMs);
    if (clock.now().getTime() + delay < deadlineAt) {
      const retried = await uow.run(async (tx) => {
        const task = await tx.tasks.findById(p.task.id);
        if (!task || task.status !== 'generating') return false;
        // A retry starts a new upstream job: the old handle is cleared with the scheduling of the new attempt.
        if (task.upstreamHandle !== null) await tx.tasks.saveUpstreamHandle(p.task.id, null);
        await tx.jobs.enqueueGeneration(p.task.id, { startAfterMs: delay, providerId: p.model.provider });
        return true;
      });
      p.log.warn({ err: error.message, kind: error.kind, attempt: attempts, retryInMs: delay }, 'retryable upstream failure; a new attempt is scheduled');
      return retried ? 'retrying' : 'skipped';
    }
  }
  return null;
}
