import { isUpstreamError } from '../errors/upstream-error.js';
import type { AdapterCall } from '../ports/provider-adapter.js';
import type { TaskStore } from '../ports/stores.js';
import type { Telemetry, UpstreamOperation } from '../ports/telemetry.js';
import type { ExecuteTaskOptions } from '../execution/execution-options.js';
import { TaskCancelled } from '../execution/inflight-calls.js';
import type { Prepared } from './prepared-task.js';
import { DeadlineExceeded } from '../execution/task-failure.js';

/** The adapter call of a task's step on its route, aborted by `signal` (deadline, cancel, shutdown). */
export function adapterCallOf(p: Prepared, signal: AbortSignal, options: ExecuteTaskOptions): AdapterCall {
  return {
    taskId: p.task.id,
    model: p.model,
    request: p.request,
    abortSignal: signal,
    readInput: (url) => options.readInput(url, signal),
    webhookUrl: options.webhookUrl(p.model.provider, p.task.id),
  };
}

/** One upstream call, timed and classified for the metrics (a failed status step is an answer, not an error). */
export async function timedUpstreamCall<T>(telemetry: Telemetry, p: Prepared, operation: UpstreamOperation, call: () => Promise<T>): Promise<T> {
  const start = performance.now();
  let errorClass: string | null = null;
  try {
    return await call();
  } catch (error) {
    errorClass = isUpstreamError(error) ? error.kind : error instanceof TaskCancelled || error instanceof DeadlineExceeded ? 'aborted' : 'internal';
    throw error;
  } finally {
    telemetry.upstreamCall({ provider: p.model.provider, operation, errorClass, durationMs: performance.now() - start });
  }
}

/** Cancels the task's started upstream job on its route, where the adapter can (a failed cancel is logged). */
export async function cancelUpstream(tasks: TaskStore, p: Prepared, call: AdapterCall | null): Promise<void> {
  const handle = (await tasks.findById(p.task.id))?.upstreamHandle ?? null;
  if (handle === null || !p.adapter.cancel) return;
  const base: AdapterCall = call ?? {
    taskId: p.task.id,
    model: p.model,
    request: p.request,
    abortSignal: AbortSignal.timeout(10_000),
    readInput: () => Promise.reject(new Error('no inputs are read when cancelling')),
    webhookUrl: null,
  };
  try {
    await p.adapter.cancel(handle, { ...base, abortSignal: AbortSignal.timeout(10_000) });
    p.log.info({ route: p.model.id }, 'upstream job cancelled');
  } catch (err) {
    p.log.warn({ err: (err as Error).message }, 'upstream cancel failed');
  }
}
