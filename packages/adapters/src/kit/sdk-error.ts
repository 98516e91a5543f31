import { APICallError, NoImageGeneratedError, RetryError } from 'ai';
import {
  isUpstreamError,
  upstreamErrorDetail,
  upstreamErrorFromNetwork,
  upstreamErrorFromResponse,
  UpstreamError,
  type UpstreamErrorKind,
} from '@gengate/core/adapter';
import { redactUpstreamError } from './redact.js';

/** What a provider knows beyond the HTTP status: its own error codes, read from the raw body. */
export type ErrorRefinement = (status: number, detail: string, body: string) => UpstreamErrorKind | undefined;

export interface SdkErrorContext {
  /** Secret values (the adapter's API key) that must not survive in the message. */
  readonly secrets: readonly string[];
  readonly refine?: ErrorRefinement;
  /** Extra wait the provider states in its body (Google's RetryInfo), when no Retry-After header is sent. */
  readonly retryAfterFromBody?: (body: string) => number | null;
  /** The call's signal: once it is aborted, the abort's reason is rethrown as it is (the worker knows why). */
  readonly abortSignal?: AbortSignal;
}

/** Words a provider uses when it refuses the content itself (not a transient failure). */
const REFUSAL = /nsfw|content[ _-]?(policy|filter|moderation)|safety|flagged/i;

function isAbort(e: unknown): boolean {
  return (e as { name?: unknown } | null)?.name === 'AbortError';
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
    { classify: refine ? (status, detail) => refine(status, detail, body) : undefined, cause: e },
  );
  if (error.retryAfterMs === null && ctx.retryAfterFromBody) {
    const fromBody = ctx.retryAfterFromBody(body);
    if (fromBody !== null) {
      return new UpstreamError(error.message, { kind: error.kind, statusCode: error.statusCode, retryAfterMs: fromBody, requestId: error.requestId });
    }
  }
  return error;
}

function classify(error: unknown, ctx: SdkErrorContext): unknown {
  if (isUpstreamError(error)) return error;
  if (isAbort(error)) return error;
  if (RetryError.isInstance(error)) return classify(error.lastError, ctx);
  if (APICallError.isInstance(error)) return fromApiCallError(error, ctx);
  if (NoImageGeneratedError.isInstance(error)) {
    return new UpstreamError('The provider returned no image.', { kind: 'bad_output', cause: error });
  }
  const name = (error as { name?: unknown } | null)?.name;
  // A broken connection or a timeout outside an APICallError (the SDK's own polling of a job).
  if ((error instanceof TypeError && /fetch|network|socket/i.test(error.message)) || name === 'TimeoutError') return upstreamErrorFromNetwork(error);
  if (typeof name === 'string' && name.startsWith('AI_')) {
    // The SDK could not read the provider's answer (invalid JSON, unexpected shape, empty body), or the
    // provider said it refused the content.
    const detail = upstreamErrorDetail(error instanceof Error ? error.message : String(error));
    const refused = REFUSAL.test(detail);
    return new UpstreamError(`${refused ? 'refused' : 'unreadable answer'}: ${detail}`.slice(0, 300), { kind: refused ? 'content_policy' : 'bad_output', cause: error });
  }
  return error;
}

/**
 * The kit's one AI SDK error translator: whatever an AI SDK call threw, as gengate's UpstreamError,
 * classified by core's rules (status, Retry-After, request id) and the provider's refinements, with the
 * credentials removed from the message. An abort is passed through as it is (the signal's reason when
 * `abortSignal` is given and aborted); errors that are not the SDK's (bugs) too.
 */
export function toUpstreamError(error: unknown, ctx: SdkErrorContext): unknown {
  if (ctx.abortSignal?.aborted) return ctx.abortSignal.reason ?? error;
  const e = classify(error, ctx);
  if (!isUpstreamError(e)) return e;
  const redacted = redactUpstreamError(e, ctx.secrets);
  return redacted.message === e.message ? e : redacted;
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

