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
let organizationId: string | null = null;
let onOrganizationLost: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function setSessionLostHandler(fn: (() => void) | null): void {
  onSessionLost = fn;
}

/** The organization every /api/v1 request acts on (the switcher's choice; null: the personal one). */
export function setOrganization(id: string | null): void {
  organizationId = id;
}

/** Called when the gateway says the chosen organization is not (or no longer) the caller's. */
export function setOrganizationLostHandler(fn: (() => void) | null): void {
  onOrganizationLost = fn;
}

/** The request headers of one call: the session's CSRF token, and the organization on /api/v1 requests. */
export function requestHeaders(path: string, accept: string, hasBody: boolean, state: { csrf: string | null; organization: string | null }): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  if (state.csrf) headers['X-CSRF-Token'] = state.csrf;
  if (hasBody) headers['Content-Type'] = 'application/json';
  if (state.organization && path.startsWith('/api/v1/')) headers['X-Gengate-Organization'] = state.organization;
  return headers;
}

interface ErrorBody {
  message?: string;
  error?: { type?: string; param?: string | null };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

async function send(method: Method, path: string, body: unknown, accept: string): Promise<Response> {
  const headers = requestHeaders(path, accept, body !== undefined, { csrf: csrfToken, organization: organizationId });
  try {
    return await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(`The gateway could not be reached (${err instanceof Error ? err.message : String(err)}).`, 0, null, null);
  }
}

async function failure(res: Response, path: string): Promise<ApiError> {
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const e = (json ?? {}) as ErrorBody;
  const type = e.error?.type ?? null;
  if (res.status === 401 && (type === 'session_required' || type === 'authentication_failed') && !path.endsWith('/session')) onSessionLost?.();
  if (res.status === 404 && type === 'organization_not_found' && organizationId !== null) onOrganizationLost?.();
  return new ApiError(e.message ?? `The gateway answered HTTP ${res.status}.`, res.status, type, e.error?.param ?? null);
}

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const res = await send(method, path, body, 'application/json');
  if (!res.ok) throw await failure(res, path);
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return json as T;
}

/**
 * Downloads a file the API answers with (a CSV export): fetched with the session's CSRF header, which a
 * plain link cannot send, then handed to the browser as a download under the server's file name.
 */
export async function download(path: string, accept: string, fallbackName: string): Promise<{ name: string; size: number }> {
  const res = await send('GET', path, undefined, accept);
  if (!res.ok) throw await failure(res, path);
  const blob = await res.blob();
  const name = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { name, size: blob.size };
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
