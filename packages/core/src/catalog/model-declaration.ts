import type { ModelDescriptor } from '../model/model.js';
import { ratioValue } from '../model/modality.js';
import { priceValues } from '../pricing/price-dimensions.js';

const MODEL_ID = /^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9._-]*$/;
const PRICING_FOR = { chat: ['per_token'], image: ['per_image'], video: ['per_second', 'per_video'] } as const;

/**
 * Checks that a model's declaration is coherent, so that a request its schema accepts can always be
 * priced and sized: dotted id, matching modality, a pricing kind for the modality, every price a
 * non-negative integer, a price for every resolution, a size for every aspect ratio.
 */
export function checkModelDeclaration(model: ModelDescriptor): void {
  const fail = (what: string): never => {
    throw new Error(`model ${model.id}: ${what}`);
  };
  if (!MODEL_ID.test(model.id)) fail('id is not of the form <category>.<model_name>');
  const c = model.capabilities;
  if (c.modality !== model.modality) fail('capabilities do not match its modality');
  if (!(PRICING_FOR[model.modality] as readonly string[]).includes(model.pricing.kind)) fail(`pricing ${model.pricing.kind} does not fit a ${model.modality} model`);
  for (const v of priceValues(model.pricing)) if (!Number.isSafeInteger(v) || v < 0) fail(`price ${v} is not a non-negative integer (micro-USD)`);
  if (c.modality === 'video') {
    if (c.durations.length === 0 || c.resolutions.length === 0 || c.aspectRatios.length === 0) fail('durations, resolutions and aspect ratios must not be empty');
    const p = model.pricing;
    const table = p.kind === 'per_second' ? p.perSecond : p.kind === 'per_video' ? p.perVideo : {};
    for (const r of c.resolutions) if (table[r] === undefined) fail(`no price for resolution ${r}`);
  } else if (c.modality === 'image') {
    if (c.aspectRatios.length === 0) fail('aspect ratios must not be empty');
    const s = c.sizes;
    if (s.kind === 'range' && !(s.minSide <= s.defaultLongSide && s.defaultLongSide <= s.maxSide)) fail('defaultLongSide is outside minSide..maxSide');
    if (s.kind === 'fixed') {
      if (s.options.length === 0) fail('fixed sizes must not be empty');
      for (const r of c.aspectRatios) {
        if (!s.options.some((o) => Math.abs(o.width / o.height - ratioValue(r)) < 0.02)) fail(`no fixed size for aspect ratio ${r}`);
      }
    }
    if ((c.maxImages ?? 1) < 1) fail('maxImages must be at least 1');
  } else if (c.defaultMaxTokens > c.maxOutputTokens) {
    fail('defaultMaxTokens exceeds maxOutputTokens');
  }
}
