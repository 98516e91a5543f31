import type { ModelDescriptor } from '../model/model.js';
import { CREDITS_PER_USD, MARKUP_ONE, type PriceVariant } from '../model/pricing.js';

export interface PriceLine {
  /**
   * What one unit is: `1M_input_tokens`, `1M_output_tokens`, `1M_cached_input_tokens`, `1M_cache_write_input_tokens` (chat), `image`, `image_above_1mp`, `megapixel`,
   * `1M_text_input_tokens`, `1M_image_input_tokens`, `1M_image_output_tokens` (token-billed image models),
   * `second`, `video`.
   */
  unit: string;
  /** Resolution the line applies to (video), else null. */
  resolution: string | null;
  /** Further conditions under which this line applies (e.g. `{ "quality": "high", "size": "1024x1536" }`), else null. */
  conditions: Record<string, string | number | boolean> | null;
  credits: number;
  usd: number;
}

/** The pricing record (GET /models/{id}/pricing and each entry of GET /pricing): the user's price, markup included. */
export interface PricingView {
  model_id: string;
  provider: string;
  modality: string;
  currency: 'USD';
  credits_per_usd: number;
  prices: PriceLine[];
}

/** A micro-USD upstream price with the markup applied, exact to the decimal (integer arithmetic, one division). */
function line(unit: string, microUsd: number, markupBp: number, resolution: string | null = null, conditions: PriceLine['conditions'] = null): PriceLine {
  const scaled = microUsd * markupBp; // micro-USD x basis points: exact integer
  return { unit, resolution, conditions, credits: (scaled * CREDITS_PER_USD) / (1_000_000 * MARKUP_ONE), usd: scaled / (1_000_000 * MARKUP_ONE) };
}

function variantLines(unit: string, variants: readonly PriceVariant[] | undefined, markupBp: number): PriceLine[] {
  return (variants ?? []).map((v) => {
    const { resolution, ...rest } = v.when;
    return line(unit, v.price, markupBp, resolution === undefined ? null : String(resolution), Object.keys(rest).length > 0 ? rest : null);
  });
}

export function toPricingView(model: ModelDescriptor, markupBp: number = MARKUP_ONE): PricingView {
  const p = model.pricing;
  let prices: PriceLine[];
  switch (p.kind) {
    case 'per_token':
      prices = [line('1M_input_tokens', p.inputPerMillionTokens, markupBp), line('1M_output_tokens', p.outputPerMillionTokens, markupBp)];
      if (p.cachedInputPerMillionTokens !== undefined) prices.push(line('1M_cached_input_tokens', p.cachedInputPerMillionTokens, markupBp));
      if (p.cacheWriteInputPerMillionTokens !== undefined) prices.push(line('1M_cache_write_input_tokens', p.cacheWriteInputPerMillionTokens, markupBp));
      if (p.longContext) {
        const l = p.longContext;
        const above = { input_tokens_above: l.aboveInputTokens };
        prices.push(line('1M_input_tokens', l.inputPerMillionTokens, markupBp, null, above), line('1M_output_tokens', l.outputPerMillionTokens, markupBp, null, above));
        if (l.cachedInputPerMillionTokens !== undefined) prices.push(line('1M_cached_input_tokens', l.cachedInputPerMillionTokens, markupBp, null, above));
        if (l.cacheWriteInputPerMillionTokens !== undefined) prices.push(line('1M_cache_write_input_tokens', l.cacheWriteInputPerMillionTokens, markupBp, null, above));
      }
      break;
    case 'per_image':
      prices =
        p.perMegapixel !== undefined
          ? [line('megapixel', p.perMegapixel, markupBp)]
          : [line('image', p.perImage, markupBp), line('image_above_1mp', p.perLargeImage ?? p.perImage, markupBp)];
      prices.push(...variantLines('image', p.variants, markupBp));
      if (p.tokens) {
        const t = p.tokens;
        prices.push(line('1M_text_input_tokens', t.textInputPerMillionTokens, markupBp));
        if (t.imageInputPerMillionTokens !== undefined) prices.push(line('1M_image_input_tokens', t.imageInputPerMillionTokens, markupBp));
        if (t.imageOutputPerMillionTokens !== undefined) prices.push(line('1M_image_output_tokens', t.imageOutputPerMillionTokens, markupBp));
      }
      break;
    case 'per_second':
      prices = [...Object.entries(p.perSecond).map(([res, micro]) => line('second', micro, markupBp, res)), ...variantLines('second', p.variants, markupBp)];
      break;
    case 'per_video':
      prices = [...Object.entries(p.perVideo).map(([res, micro]) => line('video', micro, markupBp, res)), ...variantLines('video', p.variants, markupBp)];
      break;
  }
  return { model_id: model.id, provider: model.provider, modality: model.modality, currency: 'USD', credits_per_usd: CREDITS_PER_USD, prices };
}
