import { unwrap } from './api-error.js';
import type { GengateClient } from './create-client.js';
import type { components } from './generated/openapi.js';

export type Task = components['schemas']['Task'];

export interface WaitForTaskOptions {
  /** Stops waiting (the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /** Time between polls; default 1000 ms (the interface document recommends 1 s for chat, 3 s for image and video). */
  readonly intervalMs?: number;
  /** Gives up after this long (rejects with a TimeoutError); default: never. */
  readonly timeoutMs?: number;
  /** Called with every polled state, e.g. to show `status` or `progress`. */
  readonly onPoll?: (task: Task) => void;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Polls `GET /run/tasks/{task_id}` until the task is `success` or `fail` and returns it (a failed task
 * is returned, not thrown: read its `error_message`). A refused poll throws GengateApiError.
 */
export async function waitForTask(client: GengateClient, taskId: string, options: WaitForTaskOptions = {}): Promise<Task> {
  const intervalMs = options.intervalMs ?? 1000;
  const signals = [options.signal, options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs)].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  for (;;) {
    signal?.throwIfAborted();
    const task = unwrap(await client.GET('/run/tasks/{task_id}', { params: { path: { task_id: taskId } }, ...(signal ? { signal } : {}) }));
    options.onPoll?.(task);
    if (task.status === 'success' || task.status === 'fail') return task;
    await sleep(intervalMs, signal);
  }
}
