/** The one way the dashboard talks to the gateway: same-origin fetch, the session cookie, and the CSRF header. */

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly type: string | null,
    readonly param: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;
let onSessionLost: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function setSessionLostHandler(fn: (() => void) | null): void {
  onSessionLost = fn;
}

interface ErrorBody {
  message?: string;
  error?: { type?: string; param?: string | null };
}

export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (csrfToken) headers['X-CSRF-Token'] = csrfToken;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(`The gateway could not be reached (${err instanceof Error ? err.message : String(err)}).`, 0, null, null);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const e = (json ?? {}) as ErrorBody;
    const type = e.error?.type ?? null;
    if (res.status === 401 && (type === 'session_required' || type === 'authentication_failed') && !path.endsWith('/session')) onSessionLost?.();
    throw new ApiError(e.message ?? `The gateway answered HTTP ${res.status}.`, res.status, type, e.error?.param ?? null);
  }
  return json as T;
}

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A query string from a record; arrays repeat the key, empty values are left out. */
export function query(params: Record<string, string | number | readonly string[] | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const item of v) q.append(k, item);
    else q.append(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
