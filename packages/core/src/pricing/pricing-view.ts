import type { ModelDescriptor } from '../model/model.js';
import { microCreditsToMicroUsd, microToCredits, microUsdToUsd } from '../util/money.js';

export interface PriceLine {
  /** What one unit is: `1M_input_tokens`, `1M_output_tokens`, `image`, `image_above_1mp`, `second`. */
  unit: string;
  /** Resolution the line applies to (video), else null. */
  resolution: string | null;
  credits: number;
  usd: number;
}

/** The pricing record (GET /models/{id}/pricing and each entry of GET /pricing). */
export interface PricingView {
  model_id: string;
  provider: string;
  modality: string;
  currency: 'USD';
  credits_per_usd: number;
  prices: PriceLine[];
}

function line(unit: string, micro: number, resolution: string | null = null): PriceLine {
  return { unit, resolution, credits: microToCredits(micro), usd: microUsdToUsd(microCreditsToMicroUsd(micro)) };
}

export function toPricingView(model: ModelDescriptor): PricingView {
  const p = model.pricing;
  let prices: PriceLine[];
  switch (p.kind) {
    case 'per_token':
      prices = [line('1M_input_tokens', p.inputPerMillionTokens), line('1M_output_tokens', p.outputPerMillionTokens)];
      break;
    case 'per_image':
      prices = [line('image', p.perImage), line('image_above_1mp', p.perLargeImage ?? p.perImage)];
      break;
    case 'per_second':
      prices = Object.entries(p.perSecond).map(([res, micro]) => line('second', micro, res));
      break;
  }
  return { model_id: model.id, provider: model.provider, modality: model.modality, currency: 'USD', credits_per_usd: 100, prices };
}
