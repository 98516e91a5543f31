import { APICallError, NoImageGeneratedError, RetryError } from 'ai';
import {
  isUpstreamError,
  redactSecrets,
  upstreamErrorDetail,
  upstreamErrorFromNetwork,
  upstreamErrorFromResponse,
  UpstreamError,
  type UpstreamErrorKind,
} from '@gengate/core';

/** What a provider knows beyond the HTTP status: its own error codes, read from the raw body. */
export type ErrorRefinement = (status: number, detail: string, body: string) => UpstreamErrorKind | undefined;

export interface SdkErrorContext {
  /** Secret values (the adapter's API key) that must not survive in the message. */
  readonly secrets: readonly string[];
  readonly refine?: ErrorRefinement;
  /** Extra wait the provider states in its body (Google's RetryInfo), when no Retry-After header is sent. */
  readonly retryAfterFromBody?: (body: string) => number | null;
}

function isAbort(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

function withRedactedMessage(e: UpstreamError, secrets: readonly string[]): UpstreamError {
  const message = redactSecrets(e.message, secrets);
  if (message === e.message) return e;
  return new UpstreamError(message, {
    kind: e.kind,
    isRetryable: e.isRetryable,
    statusCode: e.statusCode,
    retryAfterMs: e.retryAfterMs,
    requestId: e.requestId,
  });
}

function fromApiCallError(e: APICallError, ctx: SdkErrorContext): UpstreamError {
  if (e.statusCode === undefined) {
    // No HTTP answer: the SDK wraps the fetch failure (connection refused, reset, DNS) in its cause.
    return upstreamErrorFromNetwork(e.cause ?? e);
  }
  const body = e.responseBody ?? '';
  const headers = e.responseHeaders ?? {};
  const refine = ctx.refine;
  const error = upstreamErrorFromResponse(
    { status: e.statusCode, headers, body },
    { classify: refine ? (status, detail) => refine(status, detail, body) : undefined },
  );
  if (error.retryAfterMs === null && ctx.retryAfterFromBody) {
    const fromBody = ctx.retryAfterFromBody(body);
    if (fromBody !== null) {
      return new UpstreamError(error.message, { kind: error.kind, statusCode: error.statusCode, retryAfterMs: fromBody, requestId: error.requestId });
    }
  }
  return error;
}

/**
 * Turns whatever an AI SDK call threw into gengate's UpstreamError, classified by core's rules and the
 * provider's refinements, with the API key removed from the message. Aborts are passed through as they
 * are (the worker knows why it aborted); errors that are not the SDK's (bugs) too.
 */
export function toUpstreamError(error: unknown, ctx: SdkErrorContext): unknown {
  if (isUpstreamError(error)) return withRedactedMessage(error, ctx.secrets);
  if (isAbort(error)) return error;
  if (RetryError.isInstance(error)) return toUpstreamError(error.lastError, ctx);
  if (APICallError.isInstance(error)) return withRedactedMessage(fromApiCallError(error, ctx), ctx.secrets);
  if (NoImageGeneratedError.isInstance(error)) {
    return new UpstreamError('The provider returned no image.', { kind: 'bad_output', cause: error });
  }
  const name = (error as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && name.startsWith('AI_')) {
    // The SDK could not read the provider's answer (invalid JSON, unexpected shape, empty body).
    const detail = upstreamErrorDetail(error instanceof Error ? error.message : String(error));
    return new UpstreamError(redactSecrets(`unreadable answer: ${detail}`, ctx.secrets).slice(0, 300), { kind: 'bad_output', cause: error });
  }
  return error;
}

/** `error.code` / `error.type` / `error.status` of a JSON error body (OpenAI, Anthropic, Google shapes), lower-cased. */
export function errorCodes(body: string): string[] {
  try {
    const j = JSON.parse(body) as { error?: unknown; type?: unknown };
    const err = (typeof j.error === 'object' && j.error !== null ? j.error : {}) as Record<string, unknown>;
    return [err['code'], err['type'], err['status']].filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase());
  } catch {
    return [];
  }
}
