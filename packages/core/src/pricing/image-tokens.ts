import type { ImageTokenPrices } from '../model/pricing.js';
import type { NormalizedImageRequest } from '../model/normalized-request.js';
import type { ProducedUsage } from '../model/produced-usage.js';
import { maxInputTokens } from './token-bound.js';

/*
 * The token components of a token-billed image model, in pico-USD (tokens x micro-USD per 1M tokens).
 * Held: the largest text input the request can bill. Charged: the input tokens the upstream reports.
 */

/** The most the request's text input can bill: every prompt byte a token, once per upstream call. */
export function heldImageInputPico(t: ImageTokenPrices, req: NormalizedImageRequest): bigint {
  const text = maxInputTokens(req.prompt ?? '') + maxInputTokens(req.negativePrompt ?? '');
  const calls = t.promptBilled === 'per_image' ? req.n : 1;
  return BigInt(text) * BigInt(calls) * BigInt(t.textInputPerMillionTokens);
}

/**
 * The input tokens the upstream reported, priced: text and image tokens at their own rates; an unsplit
 * total at the higher rate (never below what it can cost). Null when the upstream reported no input usage.
 */
export function reportedImageInputPico(t: ImageTokenPrices, usage: ProducedUsage): bigint | null {
  // Image tokens on a model without an image-input price (it takes no reference images) are priced as text.
  const imageRate = t.imageInputPerMillionTokens ?? t.textInputPerMillionTokens;
  if (usage.inputTextTokens !== undefined || usage.inputImageTokens !== undefined) {
    return BigInt(usage.inputTextTokens ?? 0) * BigInt(t.textInputPerMillionTokens) + BigInt(usage.inputImageTokens ?? 0) * BigInt(imageRate);
  }
  if (usage.inputTokens !== undefined) return BigInt(usage.inputTokens) * BigInt(Math.max(t.textInputPerMillionTokens, imageRate));
  return null;
}

/** The output image tokens the upstream reported, priced; null when it has no such price or reported none. */
export function reportedImageOutputPico(t: ImageTokenPrices, usage: ProducedUsage): bigint | null {
  if (t.imageOutputPerMillionTokens === undefined || usage.outputTokens === undefined) return null;
  return BigInt(usage.outputTokens) * BigInt(t.imageOutputPerMillionTokens);
}
