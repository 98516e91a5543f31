import { recordViolation } from './contract-violations.js';
import { openApiContract } from './openapi-contract.js';

/**
 * A fetch that checks every exchange against docs/openapi.yaml, for a test that talks to a gengate served
 * by someone else's server (the examples); a mismatch fails the test (test/vitest-contract-setup.ts).
 * `mount` is where that server serves /api/v1 (read as /api/v1); `tolerate` names problems the server in
 * front of gengate causes and gengate cannot prevent (each with its reason at the call).
 */
export function contractFetch(mount = '/api/v1', tolerate: readonly RegExp[] = []): (input: Request | string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const requestText = request.body ? await request.clone().text() : undefined;
    const response = await fetch(request);
    const type = response.headers.get('content-type') ?? '';
    const responseText = /^(application\/json|text\/)/i.test(type) ? await response.clone().text() : undefined;
    const url = new URL(request.url);
    const path = url.pathname.startsWith(`${mount}/`) ? `/api/v1${url.pathname.slice(mount.length)}` : url.pathname;
    for (const problem of openApiContract().check({
      method: request.method,
      url: `${path}${url.search}`,
      requestHeaders: Object.fromEntries(request.headers),
      requestBody: requestText || undefined,
      status: response.status,
      responseHeaders: Object.fromEntries(response.headers),
      responseText,
    })) {
      if (!tolerate.some((t) => t.test(problem))) recordViolation(problem);
    }
    return response;
  };
}
