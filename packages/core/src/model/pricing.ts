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
 * A long-prompt tier of a token-priced model (Claude Haiku 5.5: prompts above 100,000 tokens cost more):
 * when a request's input tokens exceed `aboveInputTokens`, the whole request is billed at these prices.
 */
export interface LongContextPrices {
  readonly aboveInputTokens: number;
  /** Micro-USD per one million input tokens above the threshold. */
  readonly inputPerMillionTokens: number;
  /** Micro-USD per one million output tokens when the input is above the threshold. */
  readonly outputPerMillionTokens: number;
  /** Cache reads above the threshold (see the base price's field); default: this tier's input price. */
  readonly cachedInputPerMillionTokens?: number;
  /** Cache writes above the threshold (see the base price's field); default: this tier's input price. */
  readonly cacheWriteInputPerMillionTokens?: number;
}

/**
 * The tokens an image model bills besides its images (GPT Image, Gemini image): the prompt's text, any
 * reference images, and, where the upstream reports them, the output image tokens. Micro-USD per 1M tokens.
 */
export interface ImageTokenPrices {
  /** The prompt's text tokens. */
  readonly textInputPerMillionTokens: number;
  /** Reference images' tokens (image input), where the model takes reference images. */
  readonly imageInputPerMillionTokens?: number;
  /**
   * Output image tokens: when set and the upstream reports its output tokens, the images are charged by
   * those tokens (exact for every size) instead of the per-image price, which is still what is held.
   */
  readonly imageOutputPerMillionTokens?: number;
  /**
   * How often the prompt is billed: once per request (one upstream call makes every image, GPT Image),
   * or once per image (one upstream call per image, Gemini through the AI SDK).
   */
  readonly promptBilled: 'per_request' | 'per_image';
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
      /**
       * Micro-USD per one million input tokens read from the provider's prompt cache (OpenAI's cached
       * input, Anthropic's cache hits), charged when the upstream reports them; default: the input price.
       */
      readonly cachedInputPerMillionTokens?: number;
      /**
       * Micro-USD per one million input tokens written to the provider's prompt cache (Anthropic's cache
       * writes, which cost more than plain input), charged when the upstream reports them; default: the
       * input price. The hold still counts every input byte as one plain input token (real prompts have
       * several bytes a token, which covers the dearer writes); the charge is never above the hold.
       */
      readonly cacheWriteInputPerMillionTokens?: number;
      readonly longContext?: LongContextPrices;
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
      /** Tokens billed besides the images (held at their largest, charged as reported). */
      readonly tokens?: ImageTokenPrices;
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

/** The money units, defined beside their conversions (util/money.ts). */
export { CREDITS_PER_USD, MICRO_PER_CREDIT } from '../util/money.js';
/** Basis points of a markup factor: 10,000 = 1.0 (the user pays exactly the upstream cost). */
export const MARKUP_ONE = 10_000;
