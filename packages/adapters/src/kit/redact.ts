import { redactSecrets, UpstreamError } from '@gengate/core/adapter';

/**
 * The same error with every credential (and anything shaped like one) removed from its message: the one
 * redactor of the kit, used by `callUpstream` and the AI SDK translator (an upstream may echo a key back).
 */
export function redactUpstreamError(e: UpstreamError, secrets: readonly string[]): UpstreamError {
  const message = redactSecrets(e.message, secrets);
  if (message === e.message) return e;
  return new UpstreamError(message, { kind: e.kind, isRetryable: e.isRetryable, statusCode: e.statusCode, retryAfterMs: e.retryAfterMs, requestId: e.requestId });
}
