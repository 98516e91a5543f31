import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import type { StrictGengateClient } from './strict-client.js';

/**
 * An openapi-fetch client typed by the gengate OpenAPI document: `client.GET('/run/tasks/{task_id}', ...)`.
 * Request bodies are closed: a field the document does not list (`promt`) is a compile error.
 */
export type GengateClient = StrictGengateClient;

export interface GengateClientOptions {
  /** The API root, including the version: e.g. `http://127.0.0.1:3000/api/v1`. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; leave it out for the open endpoints (result files, the document). */
  readonly apiKey?: string | undefined;
  /** A fetch to use instead of globalThis.fetch (tests, proxies, retries). */
  readonly fetch?: ClientOptions['fetch'] | undefined;
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * The typed client: every path, parameter, body and response of docs/openapi.yaml is a type, so a
 * wrong field is a compile error. Calls answer `{ data, error, response }` (see openapi-fetch);
 * `unwrap` turns that into the data or a thrown GengateApiError.
 */
export function createGengateClient(options: GengateClientOptions): GengateClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers['Authorization'] = `Bearer ${options.apiKey}`;
  const client: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // The same object: only the types of POST, PUT and PATCH are narrower.
  return client as StrictGengateClient;
}
