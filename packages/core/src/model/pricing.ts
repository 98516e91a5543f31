import type { VideoResolution } from './modality.js';

/**
 * Prices are data, in integer micro-credits (1 credit = 1,000,000 micro-credits; 100 credits = 1 USD).
 * See docs/billing.md for the conversion and rounding rules.
 */
export type ModelPricing =
  | {
      readonly kind: 'per_token';
      /** Micro-credits per one million input tokens. */
      readonly inputPerMillionTokens: number;
      /** Micro-credits per one million output tokens. */
      readonly outputPerMillionTokens: number;
    }
  | {
      readonly kind: 'per_image';
      /** Micro-credits per image up to 1 megapixel (1,048,576 pixels). */
      readonly perImage: number;
      /** Micro-credits per image above 1 megapixel; defaults to perImage. */
      readonly perLargeImage?: number;
    }
  | {
      readonly kind: 'per_second';
      /** Micro-credits per second of output video, per resolution. */
      readonly perSecond: Readonly<Record<VideoResolution, number>>;
    };

export const MICRO_PER_CREDIT = 1_000_000;
export const CREDITS_PER_USD = 100;
