import type { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorType } from './error-catalogue.js';

export interface GatewayErrorOptions {
  readonly param?: string | null;
  readonly cause?: unknown;
  /** Extra HTTP headers the error handler sets (e.g. Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A spend refusal's end of period (`error.resets_at`); null: the limit never resets. */
  readonly resetsAt?: Date | null;
}

/** The one error class of the gateway. Its type decides the HTTP status. */
export class GatewayError extends Error {
  readonly type: ErrorType;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly resetsAt: Date | null | undefined;

  constructor(type: ErrorType, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.type = type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.resetsAt = options.resetsAt;
  }

  /** A 400 naming the first invalid field of a zod validation failure. */
  static fromZod(error: z.ZodError, prefix = ''): GatewayError {
    const issue = error.issues[0];
    const path = issue ? [prefix, ...issue.path.map(String)].filter(Boolean).join('.') : prefix;
    let message = issue?.message ?? 'Invalid request.';
    if (issue?.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => [path, k].filter(Boolean).join('.'));
      return new GatewayError('invalid_request', `Unknown field(s): ${keys.join(', ')}.`, { param: keys[0] ?? null });
    }
    if (path) message = `${path}: ${message}`;
    return new GatewayError('invalid_request', message, { param: path || null });
  }

  get status(): number {
    return ERROR_CATALOGUE[this.type].status;
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { type: this.type, param: this.param };
    if (this.resetsAt !== undefined) error.resets_at = this.resetsAt?.toISOString() ?? null;
    return { code: this.status, message: this.message, error };
  }
}

export interface ErrorBody {
  code: number;
  message: string;
  error: { type: ErrorType; param: string | null; resets_at?: string | null };
}

export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}
