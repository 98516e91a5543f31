import { isUpstreamError } from '../errors/upstream-error.js';
import type { ModelRoutingPolicy } from '../model/routing.js';

/**
 * May a failed attempt (before any output reached the client, and before an upstream accepted a
 * long-running job) move on to the next route? Yes for the retryable classes (network / connection
 * refused, 5xx, 429, timeout); a content-policy refusal or an invalid request only where the model's
 * policy says so; never for anything else (authentication, quota, not found, bad output, internal).
 */
export function fallsBack(error: unknown, policy: ModelRoutingPolicy): boolean {
  if (!isUpstreamError(error)) return false;
  if (error.isRetryable) return true;
  if (error.kind === 'content_policy') return policy.fallback_on_content_policy === true;
  if (error.kind === 'invalid_input') return policy.fallback_on_invalid_request === true;
  return false;
}
