import { UpstreamError, type JsonValue } from '@gengate/core';
import { z } from 'zod';

/** Reads a persisted handle with its schema; a handle this adapter did not write is a not_found failure. */
export function readHandle<T>(schema: z.ZodType<T>, handle: JsonValue, provider: string): T {
  const parsed = schema.safeParse(handle);
  if (!parsed.success) throw new UpstreamError(`not a ${provider} job handle`, { kind: 'not_found' });
  return parsed.data;
}

/** Exponential backoff from `first` ms, doubling, capped at `max` ms. */
export function backoffMs(checkNumber: number, first: number, max: number): number {
  return Math.min(max, first * 2 ** Math.max(0, checkNumber - 1));
}
