import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamError } from '../errors/upstream-error.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskWarning } from '../model/task.js';
import type { AdapterCall, GenerationResult, LongRunningStatus, ProviderAdapter } from '../ports/provider-adapter.js';
import type { JsonValue } from '../util/json.js';
import { defaultPollDelayMs } from './retry-policy.js';

/*
 * The semantics of an adapter call, in one place: the worker runs each step as a job (a status check is
 * a short scheduled job, never a sleep in a worker slot), and the adapter kit runs the same steps in a
 * loop (runToCompletion). Both use these functions, so they cannot drift apart.
 */

export type StepResult =
  | { readonly kind: 'done'; readonly result: GenerationResult }
  /** A long-running job was started: its handle and the warnings of the start, persisted together. */
  | { readonly kind: 'started'; readonly handle: JsonValue; readonly warnings: readonly TaskWarning[] }
  | { readonly kind: 'running'; readonly progress: number | null; readonly retryAfterMs: number | null }
  /** The upstream job ended in failure (as opposed to the status check itself failing, which throws). */
  | { readonly kind: 'failed'; readonly error: UpstreamError };

function sameJson(a: JsonValue): boolean {
  try {
    return JSON.stringify(JSON.parse(JSON.stringify(a))) === JSON.stringify(a);
  } catch {
    return false;
  }
}

/** Checks an adapter's result; images produced default to the number of files. Throws UpstreamError('bad_output') when there is nothing. */
export function checkResult(model: ModelDescriptor, result: GenerationResult): GenerationResult {
  if (result.files.length === 0) throw new UpstreamError('The provider returned no output.', { kind: 'bad_output' });
  if (model.modality === 'image' && result.usage?.images === undefined) {
    return { ...result, usage: { ...result.usage, images: result.files.length } };
  }
  return result;
}

/** The first step of a call: generate() for a one-shot model, start() for a long-running one. */
export async function firstStep(adapter: ProviderAdapter, call: AdapterCall): Promise<StepResult> {
  call.abortSignal.throwIfAborted();
  if (!adapter.isLongRunning(call.model.id)) {
    if (!adapter.generate) throw new Error(`adapter ${adapter.providerId} has no generate()`);
    return { kind: 'done', result: checkResult(call.model, await adapter.generate(call)) };
  }
  if (!adapter.start) throw new Error(`adapter ${adapter.providerId} has no start()`);
  const started = await adapter.start(call);
  if (!sameJson(started.handle)) throw new Error(`adapter ${adapter.providerId} returned a handle that is not plain JSON`);
  return { kind: 'started', handle: started.handle, warnings: started.warnings };
}

/** A long-running job's state as a step: done, failed (the upstream job failed) or still running. */
export function stepFromStatus(model: ModelDescriptor, s: LongRunningStatus): StepResult {
  switch (s.state) {
    case 'succeeded':
      return { kind: 'done', result: checkResult(model, s.result) };
    case 'failed':
      return { kind: 'failed', error: s.error };
    case 'running':
      return {
        kind: 'running',
        progress: s.progress === undefined ? null : Math.min(1, Math.max(0, s.progress)),
        retryAfterMs: s.retryAfterMs ?? null,
      };
  }
}

/** One status check of a long-running job. A failed upstream job is a `failed` step; a failed check throws. */
export async function checkStep(adapter: ProviderAdapter, handle: JsonValue, call: AdapterCall): Promise<StepResult> {
  call.abortSignal.throwIfAborted();
  if (!adapter.status) throw new Error(`adapter ${adapter.providerId} has no status()`);
  return stepFromStatus(call.model, await adapter.status(handle, call));
}

/** Delay before the n-th status check: the upstream's own hint, else the adapter's schedule, else the default. */
export function pollDelayMs(adapter: ProviderAdapter, model: ModelDescriptor, checkNumber: number, hintMs: number | null = null): number {
  return Math.max(0, hintMs ?? adapter.pollDelayMs?.(checkNumber, model) ?? defaultPollDelayMs(checkNumber));
}

/**
 * Runs a whole call in this process with the worker's step semantics (the adapter kit and tools use it).
 * `onHandle` sees the handle a long-running start returned, as the worker persists it; the start's warnings
 * come first in the result's, as the worker stores them on the task.
 */
export async function runToCompletion(
  adapter: ProviderAdapter,
  call: AdapterCall,
  options: { timeoutMs: number; onHandle?: (handle: JsonValue) => void; maxPollDelayMs?: number },
): Promise<GenerationResult> {
  const until = Date.now() + options.timeoutMs;
  let step = await firstStep(adapter, call);
  if (step.kind === 'done') return step.result;
  if (step.kind !== 'started') throw new Error('unexpected first step');
  const { handle, warnings } = step;
  options.onHandle?.(handle);
  const withStartWarnings = (r: GenerationResult): GenerationResult =>
    warnings.length === 0 ? r : { ...r, warnings: [...warnings, ...(r.warnings ?? [])] };
  for (let n = 1; ; n++) {
    const delay = Math.min(options.maxPollDelayMs ?? Number.POSITIVE_INFINITY, pollDelayMs(adapter, call.model, n, step.kind === 'running' ? step.retryAfterMs : null));
    if (Date.now() + delay > until) throw new Error(`still running after ${options.timeoutMs} ms`);
    await sleep(delay, undefined, { signal: call.abortSignal });
    step = await checkStep(adapter, handle, call);
    if (step.kind === 'done') return withStartWarnings(step.result);
    if (step.kind === 'failed') throw step.error;
  }
}
