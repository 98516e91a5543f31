import { isUpstreamError, UpstreamError } from '../errors/upstream-error.js';
import { upstreamFailureMessage } from '../errors/upstream-failure-message.js';
import type { ModelDescriptor } from '../model/model.js';
import type { AdapterAvailability } from '../ports/provider-adapter.js';
import { redactSecrets } from '../util/redact.js';

export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

export function deadlineMessage(ms: number): string {
  return `Generation did not finish within the deadline of ${Math.round(ms / 1000)} seconds; no credits were charged.`;
}

/** The task's error_message for an error thrown by an adapter call. */
export function failureMessage(model: ModelDescriptor, error: unknown, availability: AdapterAvailability, secrets: readonly string[]): string {
  const settings = availability.settings ?? [];
  if (isUpstreamError(error)) return upstreamFailureMessage(error, { provider: model.provider, settings, secrets });
  // Not an upstream failure: an adapter bug or an unexpected error. Its text may hold internals; keep it short and redacted.
  const detail = redactSecrets(error instanceof Error ? error.message : String(error), secrets).slice(0, 200);
  return upstreamFailureMessage(new UpstreamError(detail, { kind: 'unknown' }), { provider: model.provider, secrets });
}
