import { UpstreamError, upstreamErrorFromNetwork, upstreamErrorFromResponse, type UpstreamErrorKind } from '@gengate/core/adapter';
import type { z } from 'zod';
import { redactUpstreamError } from './redact.js';

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

/** Reads an upstream answer with its schema; an answer of another shape is a `bad_output` failure naming the provider. */
export function parseAnswer<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new UpstreamError(`${what} answered in an unexpected shape`, { kind: 'bad_output' });
  return parsed.data;
}

export interface UpstreamClientOptions {
  /** The provider's name in messages ("Runway"). */
  readonly provider: string;
  /** The configured API base URL (a fake in tests); its origin is the adapter's trusted origin. */
  readonly baseURL: string;
  /** Headers of every call: the credential, the API version. */
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch?: typeof fetch;
  readonly classify?: ClassifyFailure;
  /** Credentials an error text must never show; default: none. */
  readonly secrets?: readonly string[];
}

/**
 * `callUpstream` bound to one provider: base URL, headers, classification and secrets given once, answers
 * read with a schema. `path` is under the base URL, or an absolute URL the provider handed out (a polling URL).
 */
export class UpstreamClient {
  readonly baseURL: string;
  /** The base URL's origin, for the adapter's `trustedOrigins`. */
  readonly origin: string;

  constructor(private readonly options: UpstreamClientOptions) {
    this.baseURL = withoutTrailingSlash(options.baseURL);
    this.origin = originOf(this.baseURL);
  }

  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, signal: AbortSignal, body?: unknown): Promise<UpstreamAnswer> {
    const o = this.options;
    return callUpstream({
      fetch: o.fetch ?? globalThis.fetch,
      url: /^https?:\/\//.test(path) ? path : `${this.baseURL}${path}`,
      method,
      headers: o.headers,
      body,
      signal,
      ...(o.classify ? { classify: o.classify } : {}),
      secrets: o.secrets ?? [],
    });
  }

  async get<T>(path: string, schema: z.ZodType<T>, signal: AbortSignal): Promise<T> {
    return parseAnswer(schema, (await this.call('GET', path, signal)).json, this.options.provider);
  }

  async post<T>(path: string, body: unknown, schema: z.ZodType<T>, signal: AbortSignal): Promise<T> {
    return parseAnswer(schema, (await this.call('POST', path, signal, body)).json, this.options.provider);
  }
}

