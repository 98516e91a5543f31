/**
 * The one error catalogue: every error the gateway returns has a stable `type` and an HTTP status.
 * The JSON body is `{ code, message, error: { type, param } }` (docs/errors.md).
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, description: 'The body, query or path is malformed or has an invalid value.' },
  invalid_json: { status: 400, description: 'The body is not valid JSON.' },
  sign_in_link_invalid: { status: 400, description: 'The sign-in link is unknown, expired or already used: request a new one.' },
  invalid_body: { status: 400, description: 'The body could not be read: corrupt compressed data, or a length that does not match.' },
  unsupported_parameter: { status: 400, description: 'The model does not support this parameter or value.' },
  invalid_routing: { status: 400, description: 'The routing fields (`provider`, `models`) name a provider, route or model this model cannot be routed to; nothing was held.' },
  authentication_failed: { status: 401, description: 'The API key is missing, unknown or revoked.' },
  session_required: { status: 401, description: 'The dashboard request has no valid session: sign in again.' },
  insufficient_credits: { status: 402, description: 'The available balance cannot cover the quoted price.' },
  ip_not_allowed: { status: 403, description: "The client address is outside the key's IP whitelist." },
  csrf_failed: { status: 403, description: "A dashboard request lacks its session's CSRF token or comes from another origin; nothing changed." },
  operator_only: { status: 403, description: 'The endpoint is for operators; the signed-in user is not one.' },
  sign_up_closed: { status: 403, description: 'Open sign-up is off on this gateway: an operator creates accounts.' },
  result_url_invalid: { status: 403, description: 'The result URL lacks its signature or the signature is wrong.' },
  model_not_found: { status: 404, description: 'No model with this id.' },
  model_inactive: { status: 404, description: 'The model exists but is not active.' },
  task_not_found: { status: 404, description: 'No task with this id belongs to the caller.' },
  api_key_not_found: { status: 404, description: 'No API key with this id belongs to the caller.' },
  alert_not_found: { status: 404, description: 'No balance alert with this id belongs to the caller.' },
  not_found: { status: 404, description: 'No such endpoint or resource.' },
  method_not_allowed: { status: 405, description: 'The endpoint exists but not for this method.' },
  conflict: { status: 409, description: 'The request conflicts with the current state.' },
  result_url_expired: { status: 410, description: 'The result URL has expired; poll the task for a fresh one.' },
  payload_too_large: { status: 413, description: 'The body is larger than the limit.' },
  unsupported_media_type: { status: 415, description: 'The body must be application/json in UTF-8, uncompressed or gzip, deflate or br.' },
  range_not_satisfiable: { status: 416, description: 'The Range header asks for bytes past the end of the file; Content-Range gives its size.' },
  limit_exceeded: { status: 422, description: 'A per-user cap (keys, alerts, pending top-ups) is reached.' },
  no_route_available: { status: 422, description: 'No route of the model (and of the fallback `models`) is left by the routing policy (`only`, `ignore`, `max_price`) or can take this request; nothing was held.' },
  provider_not_configured: { status: 422, description: "The model's provider is not configured on this gateway (the message names the setting); nothing was held." },
  rate_limited: { status: 429, description: "The key's rate limit is exhausted; retry after Retry-After seconds." },
  too_many_tasks: { status: 429, description: 'The user already has the most unfinished tasks this gateway accepts; submit again when some have ended.' },
  internal_error: { status: 500, description: 'An unexpected error; the request id identifies it in the logs.' },
  upstream_error: { status: 502, description: 'The upstream provider failed.' },
  overloaded: { status: 503, description: 'Too many generation jobs are waiting on this gateway; nothing was held. Retry after Retry-After seconds.' },
  service_unavailable: { status: 503, description: 'The gateway is shutting down or a dependency is unavailable.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorType = keyof typeof ERROR_CATALOGUE;
