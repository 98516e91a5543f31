import { UpstreamError, type JsonValue } from '@gengate/core/adapter';
import type { z } from 'zod';

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

/** A status-check schedule: the first delay and the cap it doubles up to (a provider's recommendation). */
export interface PollSchedule {
  readonly firstMs: number;
  readonly maxMs: number;
}

/** `pollDelayMs` of an adapter from its schedule. */
export function pollDelay(schedule: PollSchedule): (checkNumber: number) => number {
  return (n) => backoffMs(n, schedule.firstMs, schedule.maxMs);
}

/** A fraction reported by an upstream (0..1, or 0..100 as a percentage when `percent`), clamped. */
export function fraction(value: number, percent = false): number {
  return Math.min(1, Math.max(0, percent ? value / 100 : value));
}
