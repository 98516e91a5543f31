import type { ModelDescriptor } from '../model/model.js';
import { MARKUP_ONE } from '../model/pricing.js';

/**
 * The operator's markup: the user pays the upstream cost times this factor. A model's own factor wins over
 * its provider's, which wins over the default. Factors are basis points (10,000 = x1.0, 12,500 = x1.25).
 */
export interface MarkupPolicy {
  readonly defaultBp: number;
  /** Provider id -> basis points. */
  readonly providers: ReadonlyMap<string, number>;
  /** Model id -> basis points. */
  readonly models: ReadonlyMap<string, number>;
}

export const NO_MARKUP: MarkupPolicy = { defaultBp: MARKUP_ONE, providers: new Map(), models: new Map() };

export function markupFor(policy: MarkupPolicy, model: ModelDescriptor): number {
  return policy.models.get(model.id) ?? policy.providers.get(model.provider) ?? policy.defaultBp;
}

/** A decimal factor such as "1.25" (at most 4 decimals, between 0.0001 and 100) to basis points; null when invalid. */
export function parseMarkupFactor(text: string): number | null {
  const m = /^(\d{1,3})(?:\.(\d{1,4}))?$/.exec(text.trim());
  if (!m) return null;
  const bp = Number(m[1]) * MARKUP_ONE + Number((m[2] ?? '').padEnd(4, '0'));
  return bp > 0 && bp <= 100 * MARKUP_ONE ? bp : null;
}
