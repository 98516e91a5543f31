import { UpstreamError, type UpstreamErrorKind } from './upstream-error.js';

/** The parts of an HTTP response that classify an upstream failure. */
export interface UpstreamResponseLike {
  readonly status: number;
  readonly headers: Headers | Readonly<Record<string, string | undefined>>;
  /** The response body as text (JSON or not), if read. */
  readonly body?: string;
}

function header(h: UpstreamResponseLike['headers'], name: string): string | undefined {
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  const rec = h as Readonly<Record<string, string | undefined>>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : rec[key];
}

/** `retry-after-ms` (OpenAI), else `retry-after` as seconds or an HTTP date; null when absent or invalid. */
export function parseRetryAfterMs(headers: UpstreamResponseLike['headers'], now: number = Date.now()): number | null {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const v = header(headers, 'retry-after')?.trim();
  if (!v) return null;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-goog-request-id', 'cf-ray', 'x-fal-request-id', 'x-amzn-requestid'];

export function upstreamRequestId(headers: UpstreamResponseLike['headers']): string | null {
  for (const name of REQUEST_ID_HEADERS) {
    const v = header(headers, name);
    if (v) return v;
  }
  return null;
}

/** The human part of an error body: `error.message`, `message`, `detail`, or the text itself; at most 500 characters. */
export function upstreamErrorDetail(body: string | undefined): string {
  if (!body) return '';
  let text = body;
  try {
    const j: unknown = JSON.parse(body);
    const pick = (o: unknown): string | undefined => {
      if (typeof o === 'string') return o;
      if (typeof o !== 'object' || o === null) return undefined;
      const r = o as Record<string, unknown>;
      return pick(r['error']) ?? pick(r['message']) ?? pick(r['detail']) ?? (Array.isArray(r['detail']) ? JSON.stringify(r['detail']) : undefined);
    };
    text = pick(j) ?? body;
  } catch {
    // not JSON: the text itself
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}

const CONTENT_POLICY = /content[ _-]?(policy|filter|moderation)|safety (system|filter|settings)|moderation_blocked|flagged|responsible ai|prohibited content|nsfw/i;
const QUOTA = /insufficient_quota|quota exceeded|exceeded your current quota|billing|credit balance|out of credits|payment required/i;

/** The default classification of an HTTP status, refined by the body's wording. */
export function classifyHttpStatus(status: number, detail: string): UpstreamErrorKind {
  if (CONTENT_POLICY.test(detail) && status >= 400 && status < 500) return 'content_policy';
  if (status === 401 || status === 403) return 'authentication';
  if (status === 402) return 'quota';
  if (status === 429) return QUOTA.test(detail) ? 'quota' : 'rate_limited';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 409 || status >= 500) return 'server';
  if (status >= 400) return 'invalid_input';
  return 'unknown';
}

/**
 * Turns a failed upstream HTTP response into an UpstreamError: classified by status and wording
 * (408/409/429/5xx retryable by default), Retry-After honoured, the upstream's request id kept.
 * `classify` lets an adapter refine the kind from the provider's own error codes.
 */
export function upstreamErrorFromResponse(
  res: UpstreamResponseLike,
  options: { classify?: (status: number, detail: string) => UpstreamErrorKind | undefined; cause?: unknown } = {},
): UpstreamError {
  const detail = upstreamErrorDetail(res.body);
  const kind = options.classify?.(res.status, detail) ?? classifyHttpStatus(res.status, detail);
  return new UpstreamError(detail || `HTTP ${res.status}`, {
    kind,
    statusCode: res.status,
    retryAfterMs: parseRetryAfterMs(res.headers),
    requestId: upstreamRequestId(res.headers),
    cause: options.cause,
  });
}

/** A fetch that failed before any response: a timeout when the cause says so, else a network error. */
export function upstreamErrorFromNetwork(err: unknown): UpstreamError {
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  const timeout = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.cause?.code === 'ETIMEDOUT';
  const code = e.cause?.code ?? e.code;
  return new UpstreamError(timeout ? 'the provider did not answer in time' : `the provider could not be reached${code ? ` (${code})` : ''}`, {
    kind: timeout ? 'timeout' : 'network',
    cause: err,
  });
}
