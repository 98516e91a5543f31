/** Thrown by adapters when the upstream fails. `isRetryable` lets the worker retry transient failures. */
export class UpstreamError extends Error {
  readonly isRetryable: boolean;
  readonly statusCode: number | null;

  constructor(message: string, options: { isRetryable?: boolean; statusCode?: number | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamError';
    this.isRetryable = options.isRetryable ?? false;
    this.statusCode = options.statusCode ?? null;
  }
}

export function isUpstreamError(e: unknown): e is UpstreamError {
  return e instanceof UpstreamError;
}
