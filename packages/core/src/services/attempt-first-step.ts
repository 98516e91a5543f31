import { UpstreamError } from '../errors/upstream-error.js';
import type { AdapterCall } from '../ports/provider-adapter.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { AttemptStart, RouteAttempts } from '../routing/route-attempts.js';
import { firstStep, type StepResult } from '../execution/adapter-step.js';
import { TaskCancelled } from '../execution/inflight-calls.js';
import type { Prepared } from './prepared-task.js';
import { DeadlineExceeded } from '../execution/task-failure.js';
import { timedUpstreamCall } from './upstream-call.js';
import { asksForRouting } from './task-view.js';

/**
 * One attempt's first step on its route, logged and told to the breaker. While another candidate is left,
 * the attempt may use at most `budget` ms, half of the task's remaining time (ExecuteTask), so that a route
 * slow to accept leaves time to the next one (it then fails as a retryable `timeout`); null: no such limit.
 */
export async function attemptFirstStep(attempts: RouteAttempts, telemetry: Telemetry, p: Prepared, call: AdapterCall, start: AttemptStart, budget: number | null): Promise<StepResult> {
  const slow = new AbortController();
  const timer = budget === null ? null : setTimeout(() => slow.abort(new UpstreamError(`no answer within ${budget} ms, half of the time left`, { kind: 'timeout' })), Math.max(0, budget));
  const attemptCall: AdapterCall = budget === null ? call : { ...call, abortSignal: AbortSignal.any([call.abortSignal, slow.signal]) };
  try {
    const step = await timedUpstreamCall(telemetry, p, p.adapter.isLongRunning(p.model.id) ? 'start' : 'generate', () => firstStep(p.adapter, attemptCall));
    const alone = (p.task.routeAttempts?.length ?? 0) === 0 && start.route.routeId === p.task.modelId && !asksForRouting(p.task);
    await attempts.succeeded(p.task.id, start, step.kind === 'started' ? 'started' : 'success', alone);
    return step;
  } catch (thrown) {
    const error = slow.signal.aborted && !call.abortSignal.aborted ? slow.signal.reason : thrown;
    // Aborted by the task's deadline: a `deadline` of this route; by a cancel or a shutdown: says nothing of the route.
    const reason: unknown = call.abortSignal.reason;
    const recorded = !call.abortSignal.aborted ? error : reason instanceof DeadlineExceeded ? reason : new TaskCancelled('the attempt was aborted');
    await attempts.failed(p.task.id, start, recorded);
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
  }
}
