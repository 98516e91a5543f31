import type { components } from './generated/openapi.js';

export type ErrorBody = components['schemas']['Error'];
export type ErrorType = components['schemas']['ErrorType'];

/** A refused request: the HTTP status and gengate's error body `{ code, message, error: { type, param } }`. */
export class GengateApiError extends Error {
  override readonly name = 'GengateApiError';
  readonly status: number;
  readonly body: ErrorBody | null;

  constructor(status: number, body: ErrorBody | null) {
    super(body ? `${status} ${body.error.type}: ${body.message}` : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }

  /** The stable error type (branch on it, not on the message), or null when the body was not gengate's. */
  get type(): ErrorType | null {
    return this.body?.error.type ?? null;
  }
}

function isErrorBody(v: unknown): v is ErrorBody {
  const e = (v as { error?: { type?: unknown } } | null)?.error;
  return typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string' && typeof e?.type === 'string';
}

/**
 * The data of a successful call, or a thrown GengateApiError:
 * `const task = unwrap(await client.GET('/run/tasks/{task_id}', { params: { path: { task_id } } }))`.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  throw new GengateApiError(result.response.status, isErrorBody(result.error) ? result.error : null);
}
