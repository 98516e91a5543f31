import type { ModelDescriptor } from '../model/model.js';
import { MARKUP_ONE } from '../model/pricing.js';
import type { MarkupPolicy } from '../ports/settings.js';

/** The operator's markup policy: the settings type lives in `ports/settings.ts` (every injectable may name it). */
export type { MarkupPolicy } from '../ports/settings.js';

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
