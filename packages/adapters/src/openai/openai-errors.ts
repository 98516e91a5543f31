import type { UpstreamErrorKind } from '@gengate/core/adapter';
import { errorCodes } from '../kit/index.js';

/**
 * OpenAI's error codes (https://platform.openai.com/docs/guides/error-codes), which say more than the
 * status: a 429 with `insufficient_quota` is an empty account, not a rate limit; image prompts refused
 * by the safety system come back as 400 `content_policy_violation` or `moderation_blocked`.
 */
export function refineOpenAIError(_status: number, _detail: string, body: string): UpstreamErrorKind | undefined {
  const codes = errorCodes(body);
  if (codes.some((c) => c === 'insufficient_quota' || c === 'billing_hard_limit_reached' || c === 'billing_not_active')) return 'quota';
  if (codes.some((c) => c === 'content_policy_violation' || c === 'moderation_blocked' || c === 'image_generation_user_error')) return 'content_policy';
  if (codes.includes('invalid_api_key')) return 'authentication';
  if (codes.includes('model_not_found')) return 'not_found';
  if (codes.includes('rate_limit_exceeded')) return 'rate_limited';
  return undefined;
}
