import type { UpstreamErrorKind } from '@gengate/core/adapter';
import { errorCodes } from '../kit/index.js';

/*
 * The Gemini API's statuses (https://ai.google.dev/gemini-api/docs/troubleshooting): a bad key is a 400
 * INVALID_ARGUMENT with reason API_KEY_INVALID; 429 RESOURCE_EXHAUSTED is the per-minute rate limit
 * (its text speaks of "quota" either way), with the wait in a RetryInfo detail; FAILED_PRECONDITION is
 * a project without billing.
 */
export function refineGoogleError(status: number, _detail: string, body: string): UpstreamErrorKind | undefined {
  const codes = errorCodes(body);
  if (body.includes('API_KEY_INVALID') || codes.includes('unauthenticated') || codes.includes('permission_denied')) return 'authentication';
  if (status === 429 || codes.includes('resource_exhausted')) return 'rate_limited';
  if (codes.includes('failed_precondition')) return 'quota';
  if (codes.includes('deadline_exceeded')) return 'timeout';
  if (codes.includes('unavailable') || codes.includes('internal')) return 'server';
  return undefined;
}

/** The `retryDelay` of a google.rpc.RetryInfo detail ("7s", "1.5s"), in milliseconds. */
export function googleRetryDelayMs(body: string): number | null {
  try {
    const j = JSON.parse(body) as { error?: { details?: unknown } };
    const details = Array.isArray(j.error?.details) ? (j.error.details as Record<string, unknown>[]) : [];
    const info = details.find((d) => typeof d?.['@type'] === 'string' && (d['@type'] as string).endsWith('google.rpc.RetryInfo'));
    const m = typeof info?.['retryDelay'] === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info['retryDelay']) : null;
    return m?.[1] ? Math.ceil(Number(m[1]) * 1000) : null;
  } catch {
    return null;
  }
}

const BLOCKED = new Set(['SAFETY', 'IMAGE_SAFETY', 'PROHIBITED_CONTENT', 'IMAGE_PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'OTHER_IMAGE_SAFETY']);

/** Why a Gemini image call produced nothing, when the reason is a safety block (from the calls' provider metadata). */
export function googleBlockedReason(metadata: readonly unknown[]): string | null {
  for (const m of metadata) {
    const google = (m as { google?: { finishReason?: unknown; promptFeedback?: { blockReason?: unknown } | null } } | undefined)?.google;
    const reason = google?.finishReason ?? google?.promptFeedback?.blockReason;
    if (typeof reason === 'string' && (BLOCKED.has(reason) || reason.includes('SAFETY'))) return reason;
  }
  return null;
}
