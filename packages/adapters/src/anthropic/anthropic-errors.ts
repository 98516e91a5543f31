import type { UpstreamErrorKind } from '@gengate/core/adapter';
import { errorCodes } from '../kit/index.js';

/**
 * Anthropic's error types (https://docs.anthropic.com/en/api/errors): 529 `overloaded_error` is a
 * transient server condition, `billing_error` and a "credit balance is too low" refusal mean the
 * operator's account is empty, `permission_error` is a key without access.
 */
export function refineAnthropicError(_status: number, detail: string, body: string): UpstreamErrorKind | undefined {
  const types = errorCodes(body);
  if (types.includes('overloaded_error') || types.includes('api_error')) return 'server';
  if (types.includes('billing_error') || /credit balance is too low/i.test(detail)) return 'quota';
  if (types.includes('authentication_error') || types.includes('permission_error')) return 'authentication';
  if (types.includes('rate_limit_error')) return 'rate_limited';
  if (types.includes('not_found_error')) return 'not_found';
  if (types.includes('request_too_large')) return 'invalid_input';
  return undefined;
}
