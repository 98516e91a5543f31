import type { ServerResponse } from 'node:http';

/**
 * Answers with `value` as JSON: the bytes and headers of Express's `res.json` (Content-Type
 * `application/json; charset=utf-8`, Content-Length; no body for HEAD), without its per-call work that an
 * API answer has no use for: parsing and re-formatting the content type twice, the ETag (a hash of every
 * body; gengate's answers are `Cache-Control: no-store`) and the freshness check. For the hot path (the poll).
 */
export function sendJson(res: ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
