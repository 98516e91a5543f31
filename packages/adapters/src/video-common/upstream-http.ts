import { redactSecrets, UpstreamError, upstreamErrorFromNetwork, upstreamErrorFromResponse, type UpstreamErrorKind } from '@gengate/core';

/** Refines the kind of a failed response from a provider's own error wording (undefined: the default by status). */
export type ClassifyFailure = (status: number, detail: string) => UpstreamErrorKind | undefined;

export interface UpstreamRequest {
  readonly fetch: typeof fetch;
  readonly url: string;
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly signal: AbortSignal;
  readonly classify?: ClassifyFailure;
  /** Credentials an error text must never show (the upstream may echo a key back). */
  readonly secrets?: readonly string[];
}

export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or null for an empty body. */
  readonly json: unknown;
}

/**
 * One HTTP call to a provider's documented API: JSON in, JSON out. A failed status becomes a classified
 * UpstreamError (Retry-After honoured, the provider's request id kept); a broken connection a network or
 * timeout error; an abort is rethrown as it is. Never retries: the worker decides about retries.
 */
export async function callUpstream(req: UpstreamRequest): Promise<UpstreamAnswer> {
  let res: Response;
  try {
    res = await req.fetch(req.url, {
      method: req.method ?? (req.body === undefined ? 'GET' : 'POST'),
      headers: { accept: 'application/json', ...(req.body === undefined ? {} : { 'content-type': 'application/json' }), ...req.headers },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: req.signal,
    });
  } catch (err) {
    if (req.signal.aborted) throw req.signal.reason ?? err;
    throw upstreamErrorFromNetwork(err);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (req.signal.aborted) throw req.signal.reason ?? err;
    throw upstreamErrorFromNetwork(err);
  }
  if (!res.ok) throw redactUpstreamError(upstreamErrorFromResponse({ status: res.status, headers: res.headers, body: text }, { classify: req.classify }), req.secrets ?? []);
  let json: unknown = null;
  if (text.trim().length > 0) {
    try {
      json = JSON.parse(text) as unknown;
    } catch (cause) {
      throw upstreamErrorFromResponse({ status: 502, headers: res.headers, body: `the provider answered with invalid JSON: ${text.slice(0, 200)}` }, { cause });
    }
  }
  return { status: res.status, headers: res.headers, json };
}

/** True when an error is the provider's refusal of the request itself (not a transient failure). */
export function isRefusal(e: UpstreamError): boolean {
  return !e.isRetryable;
}

/** The origin of a configured base URL (`http://127.0.0.1:4010`), for `trustedOrigins`. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The same error with every credential (and anything shaped like one) removed from its message. */
export function redactUpstreamError(e: UpstreamError, secrets: readonly string[]): UpstreamError {
  const message = redactSecrets(e.message, secrets);
  if (message === e.message) return e;
  return new UpstreamError(message, { kind: e.kind, isRetryable: e.isRetryable, statusCode: e.statusCode, retryAfterMs: e.retryAfterMs, requestId: e.requestId });
}
