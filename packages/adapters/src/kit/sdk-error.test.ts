import { APICallError, RetryError } from 'ai';
import { isUpstreamError, type UpstreamError } from '@gengate/core/adapter';
import { describe, expect, it } from 'vitest';
import { toUpstreamError } from './sdk-error.js';

const KEY = 'sk-kit-test-0123456789abcdef0123';
const apiError = (statusCode: number | undefined, body: string, headers: Record<string, string> = {}) =>
  new APICallError({ message: `status ${statusCode}`, url: 'https://api.example/v1', requestBodyValues: {}, statusCode, responseHeaders: headers, responseBody: body });
const upstream = (e: unknown): UpstreamError => {
  if (!isUpstreamError(e)) throw new Error(`not an UpstreamError: ${String(e)}`);
  return e;
};

describe('the kit\'s one AI SDK error translator', () => {
  it('classifies an APICallError by status, keeps Retry-After, and removes the key from the message', () => {
    const e = upstream(toUpstreamError(apiError(429, `{"error":{"message":"slow down, key ${KEY}"}}`, { 'retry-after': '3' }), { secrets: [KEY] }));
    expect(e).toMatchObject({ kind: 'rate_limited', isRetryable: true, retryAfterMs: 3_000 });
    expect(e.message).not.toContain(KEY);
  });

  it('unwraps a RetryError and applies the provider\'s refinement', () => {
    const retry = new RetryError({ message: 'failed after 1 attempt', reason: 'maxRetriesExceeded', errors: [apiError(400, '{"error":{"code":"insufficient_credits"}}')] });
    expect(upstream(toUpstreamError(retry, { secrets: [], refine: (_s, _d, body) => (body.includes('insufficient_credits') ? 'quota' : undefined) }))).toMatchObject({ kind: 'quota' });
  });

  it('is a network error when no answer came (an APICallError without status, or a failed fetch)', () => {
    expect(upstream(toUpstreamError(apiError(undefined, ''), { secrets: [] })).kind).toBe('network');
    expect(upstream(toUpstreamError(new TypeError('fetch failed'), { secrets: [] })).kind).toBe('network');
  });

  it('reads an SDK error naming a refusal as content_policy, any other unreadable answer as bad_output', () => {
    const named = (message: string) => Object.assign(new Error(message), { name: 'AI_TypeValidationError' });
    expect(upstream(toUpstreamError(named('the output was flagged by the safety system'), { secrets: [] })).kind).toBe('content_policy');
    expect(upstream(toUpstreamError(named('expected object, got string'), { secrets: [] })).kind).toBe('bad_output');
  });

  it('passes the abort\'s own reason through once the call\'s signal is aborted, and leaves bugs alone', () => {
    const controller = new AbortController();
    const reason = new Error('deadline');
    controller.abort(reason);
    expect(toUpstreamError(apiError(500, 'x'), { secrets: [], abortSignal: controller.signal })).toBe(reason);
    const bug = new RangeError('a bug');
    expect(toUpstreamError(bug, { secrets: [] })).toBe(bug);
  });
});
