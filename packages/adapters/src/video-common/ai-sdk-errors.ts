import { APICallError } from '@ai-sdk/provider';
import { isUpstreamError, UpstreamError, upstreamErrorFromNetwork, upstreamErrorFromResponse } from '@gengate/core';
import { redactUpstreamError, type ClassifyFailure } from './upstream-http.js';

/** The error an AI SDK call ended with, unwrapped from RetryError (adapters call with maxRetries: 0). */
function innermost(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 3; i++) {
    const last = (e as { lastError?: unknown } | null)?.lastError;
    if (last === undefined) break;
    e = last;
  }
  return e;
}

/**
 * Turns whatever an AI SDK call threw into a classified UpstreamError: an APICallError by its HTTP
 * status, headers (Retry-After) and body; a fetch failure as network/timeout; anything else as a bad
 * answer. An abort is rethrown as it is.
 */
export function upstreamErrorFromAiSdk(err: unknown, signal: AbortSignal, classify?: ClassifyFailure, secrets: readonly string[] = []): unknown {
  if (signal.aborted) return signal.reason ?? err;
  const e = classifyAiSdkError(err, classify);
  return isUpstreamError(e) ? redactUpstreamError(e, secrets) : e;
}

function classifyAiSdkError(err: unknown, classify?: ClassifyFailure): unknown {
  if (isUpstreamError(err)) return err;
  const e = innermost(err);
  if (APICallError.isInstance(e)) {
    if (e.statusCode === undefined) return upstreamErrorFromNetwork(e.cause ?? e);
    return upstreamErrorFromResponse({ status: e.statusCode, headers: e.responseHeaders ?? {}, body: e.responseBody ?? e.message }, { classify, cause: e });
  }
  const name = (e as { name?: string } | null)?.name ?? '';
  if (e instanceof TypeError || name === 'TimeoutError') return upstreamErrorFromNetwork(e);
  const message = (e as Error | null)?.message ?? String(e);
  const refused = /nsfw|content[ _-]?(policy|filter|moderation)|safety|flagged/i.test(message);
  return new UpstreamError(`the provider answered in an unexpected way: ${message}`.slice(0, 500), {
    kind: refused ? 'content_policy' : 'bad_output',
    cause: e,
  });
}
