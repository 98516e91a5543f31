/** What a censored value is written as. */
export const CENSOR = '[redacted]';

/**
 * Names of fields never written to a log line, at any depth of a logged object: credentials (the
 * Authorization header, cookies, passwords), API keys and every kind of secret (`secret`, `webhookSecret`,
 * `client_secret`, ...). Matched whole and case-insensitively.
 */
const SECRET_FIELD = /^(?:authorization|proxy-authorization|cookie|set-cookie|password|passwd|api[_-]?key|[a-z_-]*secret)$/i;

/** How deep a logged object is searched; deeper values are written as they are (log objects are shallow). */
const MAX_DEPTH = 8;

/** Whether a field of this name is censored. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/**
 * `value` with every field named like a secret (isSecretField) replaced by `[redacted]`, at any depth
 * (arrays, plain objects, errors and other class instances: an object with its own `toJSON`, a Buffer or
 * a typed array is written by its own rules and not searched). Nothing is copied when nothing is
 * censored; otherwise the objects on the way to a censored field are copied (same prototype and property
 * descriptors, so an error keeps its message and stack) and the logged object itself is left unchanged.
 * pino's `redact` paths did this for named paths, but its wildcard paths (`*.apiKey`) ran the redactor on
 * every value of every line, several times the cost of the line itself.
 */
export function censorSecrets<T>(value: T): T {
  return censor(value, 0);
}

function censor<T>(value: T, depth: number): T {
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH || !searchable(value)) return value;
  let changed: Map<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    const v: unknown = (value as Record<string, unknown>)[key];
    const next = SECRET_FIELD.test(key) ? (v === undefined || v === null ? v : CENSOR) : censor(v, depth + 1);
    if (next !== v) (changed ??= new Map()).set(key, next);
  }
  return changed === null ? value : copyWith(value, changed);
}

function searchable(value: object): boolean {
  if (ArrayBuffer.isView(value) || value instanceof Date || value instanceof Map || value instanceof Set) return false;
  return typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

function copyWith<T extends object>(value: T, changed: ReadonlyMap<string, unknown>): T {
  if (Array.isArray(value)) {
    const copy: unknown[] = [...(value as unknown[])];
    for (const [k, v] of changed) copy[Number(k)] = v;
    return copy as T;
  }
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(value);
  // V8 gives an error its `stack` as an accessor that reads the error it was made for: copied as a value.
  if (value instanceof Error) descriptors['stack'] = { value: value.stack, enumerable: false, writable: true, configurable: true };
  for (const [k, v] of changed) descriptors[k] = { value: v, enumerable: true, writable: true, configurable: true };
  return Object.create(Object.getPrototypeOf(value) as object | null, descriptors) as T;
}
