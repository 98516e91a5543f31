import { UpstreamError, type InlineAttempt, type InlineRun } from '@gengate/core';
import { runToCompletion, type GenerationResult } from '@gengate/core/adapter';

/** The result of a one-shot inline call (an image) and the route that produced it. */
export interface RoutedResult {
  readonly result: GenerationResult;
  readonly attempt: InlineAttempt;
}

/**
 * Runs a one-shot inline task (`/v1/images/generations`) over its candidate routes: nothing reaches the
 * client before the whole answer, so every failure the policy lets fall back (connection refused, 5xx, 429,
 * timeout) moves on to the next candidate; the first route that answers is returned, to be charged at its
 * price. Throws the last failure when no route answered (nothing is charged then).
 */
export async function runRoutedInline(run: InlineRun, signal: AbortSignal, timeoutMs: number): Promise<RoutedResult> {
  let last: unknown = null;
  for (const route of run.candidates) {
    const attempt = await run.attempt(route);
    if (!attempt) continue;
    try {
      const result = await runToCompletion(attempt.adapter, attempt.adapterCall(signal), { timeoutMs });
      return { result, attempt };
    } catch (error) {
      last = error;
      const { fallback } = await run.recordAttemptFailure(attempt, error);
      if (!fallback) break;
    }
  }
  if (last !== null) throw last;
  throw new UpstreamError(`no route of ${run.plan.modelId} is available now (every route's circuit breaker is open)`, { kind: 'server', isRetryable: true });
}

