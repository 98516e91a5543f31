import type { VideoResolution } from './modality.js';

/**
 * A refinement of a base price: when every key of `when` equals the request's price dimension of the
 * same name (see pricing/price-dimensions.ts: `size`, `resolution`, `aspect_ratio`, `duration`, and the
 * model's provider parameters such as `quality`), `price` replaces the base price. The first match wins.
 */
export interface PriceVariant {
  readonly when: Readonly<Record<string, string | number | boolean>>;
  /** Integer micro-USD per unit (per image, per second or per video, as the pricing kind says). */
  readonly price: number;
}

/**
 * Prices are data: the UPSTREAM cost in integer micro-USD (1 USD = 1,000,000), as the provider's public
 * price page lists it. What a user pays is that cost times the operator's markup, in credits
 * (100 credits = 1 USD; see docs/billing.md for the units and the rounding).
 */
export type ModelPricing =
  | {
      readonly kind: 'per_token';
      /** Micro-USD per one million input tokens. */
      readonly inputPerMillionTokens: number;
      /** Micro-USD per one million output tokens. */
      readonly outputPerMillionTokens: number;
    }
  | {
      readonly kind: 'per_image';
      /** Micro-USD per image (up to one megapixel when perLargeImage is set). */
      readonly perImage: number;
      /** Micro-USD per image above 1 megapixel (1,048,576 pixels); defaults to perImage. */
      readonly perLargeImage?: number;
      /** When set, an image costs this per started megapixel instead (fal's FLUX pricing). */
      readonly perMegapixel?: number;
      readonly variants?: readonly PriceVariant[];
    }
  | {
      readonly kind: 'per_second';
      /** Micro-USD per second of output video, per resolution (every accepted resolution has a price). */
      readonly perSecond: Readonly<Record<VideoResolution, number>>;
      readonly variants?: readonly PriceVariant[];
    }
  | {
      readonly kind: 'per_video';
      /** Micro-USD per produced video, per resolution; variants may refine it by duration. */
      readonly perVideo: Readonly<Record<VideoResolution, number>>;
      readonly variants?: readonly PriceVariant[];
    };

/** Where a model's prices come from: the provider's public price page and the day they were taken. */
export interface PriceSource {
  readonly url: string;
  /** ISO date, YYYY-MM-DD. */
  readonly retrievedOn: string;
  readonly note?: string;
}

export const MICRO_PER_CREDIT = 1_000_000;
export const CREDITS_PER_USD = 100;
/** Basis points of a markup factor: 10,000 = 1.0 (the user pays exactly the upstream cost). */
export const MARKUP_ONE = 10_000;
