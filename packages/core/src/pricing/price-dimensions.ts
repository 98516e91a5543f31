import type { ModelPricing, PriceVariant } from '../model/pricing.js';
import type { NormalizedRequest } from '../model/normalized-request.js';

/**
 * The named facts of a request that a price variant can match: the generic ones per modality, plus every
 * scalar provider parameter (after its defaults were applied), e.g. `quality` for OpenAI images.
 */
export function priceDimensions(req: NormalizedRequest): ReadonlyMap<string, string> {
  const dims = new Map<string, string>();
  for (const [k, v] of Object.entries(req.providerParams)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') dims.set(k, String(v));
  }
  if (req.modality === 'image') {
    dims.set('size', `${req.width}x${req.height}`);
    dims.set('aspect_ratio', req.aspectRatio);
  } else if (req.modality === 'video') {
    dims.set('resolution', req.resolution);
    dims.set('aspect_ratio', req.aspectRatio);
    dims.set('duration', String(req.duration));
  }
  return dims;
}

export function matchVariant(variants: readonly PriceVariant[] | undefined, dims: ReadonlyMap<string, string>): PriceVariant | null {
  return variants?.find((v) => Object.entries(v.when).every(([k, want]) => dims.get(k) === String(want))) ?? null;
}

/** Every price value a pricing record holds (for checks that they are non-negative integers). */
export function priceValues(p: ModelPricing): number[] {
  const variants = 'variants' in p ? (p.variants ?? []).map((v) => v.price) : [];
  switch (p.kind) {
    case 'per_token':
      return [
        p.inputPerMillionTokens,
        p.outputPerMillionTokens,
        p.cachedInputPerMillionTokens ?? 0,
        p.cacheWriteInputPerMillionTokens ?? 0,
        p.longContext?.inputPerMillionTokens ?? 0,
        p.longContext?.outputPerMillionTokens ?? 0,
        p.longContext?.cachedInputPerMillionTokens ?? 0,
        p.longContext?.cacheWriteInputPerMillionTokens ?? 0,
      ];
    case 'per_image': {
      const t = p.tokens;
      const tokens = t ? [t.textInputPerMillionTokens, t.imageInputPerMillionTokens ?? 0, t.imageOutputPerMillionTokens ?? 0] : [];
      return [p.perImage, p.perLargeImage ?? 0, p.perMegapixel ?? 0, ...variants, ...tokens];
    }
    case 'per_second':
      return [...Object.values(p.perSecond), ...variants];
    case 'per_video':
      return [...Object.values(p.perVideo), ...variants];
  }
}
