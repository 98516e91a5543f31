/**
 * What went wrong upstream, by what the gateway (and its user) can do about it. Each kind has its own
 * task error_message (see upstream-failure-message.ts) and retry rule.
 */
export const UPSTREAM_ERROR_KINDS = [
  /** The provider refused the prompt or inputs under its content policy. Not retried. */
  'content_policy',
  /** The provider refused the request as invalid (a parameter, an input file, a too-long prompt). Not retried. */
  'invalid_input',
  /** The provider rejected the gateway's own credentials: the operator must fix the configuration. Not retried. */
  'authentication',
  /** The gateway's account at the provider is out of quota or credit. Not retried. */
  'quota',
  /** The provider rate-limited the gateway. Retried after Retry-After. */
  'rate_limited',
  /** The provider failed (5xx, overloaded, conflict). Retried with backoff. */
  'server',
  /** The provider could not be reached or the connection broke. Retried with backoff. */
  'network',
  /** The provider did not answer in time. Retried with backoff. */
  'timeout',
  /** The provider does not know the model or job (a configuration error, or an expired job). Not retried. */
  'not_found',
  /** The provider answered, but with unusable output (no file, wrong type, too large). Not retried. */
  'bad_output',
  'unknown',
] as const;
export type UpstreamErrorKind = (typeof UPSTREAM_ERROR_KINDS)[number];

const RETRYABLE_KINDS: ReadonlySet<UpstreamErrorKind> = new Set(['rate_limited', 'server', 'network', 'timeout']);

/** Recognizes an UpstreamError across package copies (an adapter may bundle its own core), as the AI SDK does. */
const MARKER = Symbol.for('gengate.UpstreamError');

export interface UpstreamErrorOptions {
  readonly kind?: UpstreamErrorKind;
  /** Default: by kind (rate_limited, server, network and timeout are retryable). */
  readonly isRetryable?: boolean;
  readonly statusCode?: number | null;
  /** How long the upstream asked us to wait (Retry-After), in milliseconds. */
  readonly retryAfterMs?: number | null;
  /** The upstream's own request id, kept on the task for support. */
  readonly requestId?: string | null;
  readonly cause?: unknown;
}

/**
 * Thrown by adapters when the upstream fails. The message is the upstream's own detail (already free of
 * secrets); the gateway builds the user's error_message from the kind.
 */
export class UpstreamError extends Error {
  private readonly [MARKER] = true;
  readonly kind: UpstreamErrorKind;
  readonly isRetryable: boolean;
  readonly statusCode: number | null;
  readonly retryAfterMs: number | null;
  readonly requestId: string | null;

  constructor(message: string, options: UpstreamErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamError';
    this.kind = options.kind ?? 'unknown';
    this.isRetryable = options.isRetryable ?? RETRYABLE_KINDS.has(this.kind);
    this.statusCode = options.statusCode ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.requestId = options.requestId ?? null;
  }

  static isInstance(e: unknown): e is UpstreamError {
    return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[MARKER] === true;
  }
}

export function isUpstreamError(e: unknown): e is UpstreamError {
  return UpstreamError.isInstance(e);
}
