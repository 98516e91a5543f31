import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** SHA-256 of the model id and the body with sorted keys: equal for the same request however it is formatted. */
export function requestHash(modelId: string, body: unknown): string {
  return createHash('sha256').update(JSON.stringify([modelId, canonical(body)])).digest('hex');
}
