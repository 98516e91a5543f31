import type { ModelDescriptor } from '../model/model.js';
import { MARKUP_ONE, type ImageTokenPrices } from '../model/pricing.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import { heldImageInputPico, reportedImageInputPico, reportedImageOutputPico } from './image-tokens.js';
import { matchVariant, priceDimensions } from './price-dimensions.js';
import type { ProducedUsage } from '../model/produced-usage.js';
import { maxInputTokens } from './token-bound.js';

export type { ProducedUsage } from '../model/produced-usage.js';
export { maxInputTokens } from './token-bound.js';

/*
 * Units: prices are integer micro-USD; costs are computed exactly in pico-USD (BigInt), then converted
 * once to micro-credits (1 micro-credit = 1e-8 USD = 10,000 pico-USD), rounding up. The markup is in
 * basis points (10,000 = x1.0) and applied in the same single rounding. See docs/billing.md.
 */

const ONE_MEGAPIXEL = 1_048_576;
const PICO_PER_MICRO_USD = 1_000_000n;
const PICO_PER_MICRO_CREDIT = 10_000n;

/** What a request costs upstream and what the user pays for it, in micro-credits. */
export interface PriceQuote {
  /** Upstream cost before markup, rounded up. */
  readonly costMicro: number;
  /** The user's price: cost x markup, rounded up. This is what is held, and the most that is charged. */
  readonly chargeMicro: number;
}

const ceilDiv = (n: bigint, d: bigint): bigint => (n + d - 1n) / d;

function toQuote(pico: bigint, markupBp: number): PriceQuote {
  return {
    costMicro: Number(ceilDiv(pico, PICO_PER_MICRO_CREDIT)),
    chargeMicro: Number(ceilDiv(pico * BigInt(markupBp), PICO_PER_MICRO_CREDIT * BigInt(MARKUP_ONE))),
  };
}

/** The input tokens of a chat call, split by how the provider's prompt cache billed them (all of them counted in `total`). */
interface ChatInput {
  readonly total: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/**
 * Chat tokens priced; a request whose input is above the long-prompt threshold is billed whole at those
 * prices. Cache reads and writes (part of the input) are billed at the cached-input prices where the model
 * has them, the rest of the input at the input price.
 */
function tokensPico(model: ModelDescriptor, input: ChatInput, outputTokens: number): bigint {
  const p = model.pricing;
  if (p.kind !== 'per_token') throw new Error(`model ${model.id} is not priced per token`);
  const rates = p.longContext !== undefined && input.total > p.longContext.aboveInputTokens ? p.longContext : p;
  const read = Math.min(input.cacheRead, input.total);
  const write = Math.min(input.cacheWrite, input.total - read);
  const plain = input.total - read - write;
  return (
    BigInt(plain) * BigInt(rates.inputPerMillionTokens) +
    BigInt(read) * BigInt(rates.cachedInputPerMillionTokens ?? rates.inputPerMillionTokens) +
    BigInt(write) * BigInt(rates.cacheWriteInputPerMillionTokens ?? rates.inputPerMillionTokens) +
    BigInt(outputTokens) * BigInt(rates.outputPerMillionTokens)
  );
}

/** Micro-USD per unit (image, second or video) for this request; throws when the data has no price for it. */
export function unitPriceMicroUsd(model: ModelDescriptor, req: NormalizedRequest): number {
  const p = model.pricing;
  const variant = p.kind === 'per_token' ? null : matchVariant(p.variants, priceDimensions(req));
  if (variant) return variant.price;
  if (p.kind === 'per_image' && req.modality === 'image') {
    const pixels = req.width * req.height;
    if (p.perMegapixel !== undefined) return Math.ceil(pixels / ONE_MEGAPIXEL) * p.perMegapixel;
    return pixels > ONE_MEGAPIXEL ? (p.perLargeImage ?? p.perImage) : p.perImage;
  }
  if ((p.kind === 'per_second' || p.kind === 'per_video') && req.modality === 'video') {
    const table = p.kind === 'per_second' ? p.perSecond : p.perVideo;
    const price = table[req.resolution];
    if (price === undefined) throw new Error(`model ${model.id} has no price for resolution ${req.resolution}`);
    return price;
  }
  throw new Error(`model ${model.id}: pricing ${p.kind} does not fit a ${req.modality} request`);
}

function unitsPico(model: ModelDescriptor, req: NormalizedRequest, units: number): bigint {
  return BigInt(unitPriceMicroUsd(model, req)) * BigInt(units) * PICO_PER_MICRO_USD;
}

function requestedUnits(model: ModelDescriptor, req: NormalizedRequest): number {
  if (req.modality === 'image') return req.n;
  if (req.modality === 'video') return model.pricing.kind === 'per_second' ? req.duration : 1;
  return 0;
}

/** The token prices an image model bills besides its images, if any. */
function imageTokens(model: ModelDescriptor): ImageTokenPrices | undefined {
  return model.pricing.kind === 'per_image' ? model.pricing.tokens : undefined;
}

/**
 * The price held before a run: the most the request can bill upstream. For chat it is the worst case
 * (every prompt and system byte a token, max_tokens of output); images are n x the unit price, plus, for
 * token-billed image models, every prompt byte a text token; video is seconds x the per-second price, or one video.
 */
export function quoteRun(model: ModelDescriptor, req: NormalizedRequest, markupBp: number = MARKUP_ONE): PriceQuote {
  if (req.modality === 'chat') {
    const input = maxInputTokens(req.prompt) + (req.system === null ? 0 : maxInputTokens(req.system));
    // Every input byte a plain input token: real prompts have far fewer tokens than bytes, which covers the
    // dearer cache writes (1.25x) a Messages call can ask for; the charge is never above this hold.
    return toQuote(tokensPico(model, { total: input, cacheRead: 0, cacheWrite: 0 }, req.maxTokens), markupBp);
  }
  const tokens = imageTokens(model);
  const input = tokens !== undefined && req.modality === 'image' ? heldImageInputPico(tokens, req) : 0n;
  return toQuote(unitsPico(model, req, requestedUnits(model, req)) + input, markupBp);
}

/**
 * What is charged on success, from what was produced: reported tokens for chat (cache reads and writes at
 * the model's cached-input prices), images produced (or the
 * output image tokens, where the model has a price for them and the upstream reports them) plus the
 * reported input tokens of a token-billed image model, seconds produced (rounded up) for per-second video.
 * Usage the upstream did not report is charged as held. Never more than the quote that was held.
 */
export function chargeForUsage(model: ModelDescriptor, req: NormalizedRequest, quote: PriceQuote, usage: ProducedUsage, markupBp: number = MARKUP_ONE): PriceQuote {
  let actual: PriceQuote;
  if (req.modality === 'chat') {
    if (usage.inputTokens === undefined || usage.outputTokens === undefined) return quote;
    const input = { total: usage.inputTokens, cacheRead: usage.cacheReadTokens ?? 0, cacheWrite: usage.cacheWriteTokens ?? 0 };
    actual = toQuote(tokensPico(model, input, usage.outputTokens), markupBp);
  } else {
    const asked = requestedUnits(model, req);
    let units = asked;
    if (req.modality === 'image' && usage.images !== undefined) units = Math.min(asked, usage.images);
    if (req.modality === 'video' && model.pricing.kind === 'per_second' && usage.videoSeconds !== undefined) {
      units = Math.min(asked, Math.ceil(usage.videoSeconds));
    }
    const tokens = imageTokens(model);
    if (tokens !== undefined && req.modality === 'image') {
      const output = reportedImageOutputPico(tokens, usage) ?? unitsPico(model, req, units);
      const input = reportedImageInputPico(tokens, usage) ?? heldImageInputPico(tokens, req);
      actual = toQuote(output + input, markupBp);
    } else {
      actual = toQuote(unitsPico(model, req, units), markupBp);
    }
  }
  return { costMicro: Math.min(actual.costMicro, quote.costMicro), chargeMicro: Math.min(actual.chargeMicro, quote.chargeMicro) };
}
