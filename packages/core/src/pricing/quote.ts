import type { ModelDescriptor } from '../model/model.js';
import type { TokenUsage } from '../ports/provider-adapter.js';
import type { NormalizedRequest } from '../run/normalized-request.js';
import { mulDivCeil } from '../util/money.js';

const ONE_MEGAPIXEL = 1_048_576;
const PER_MILLION = 1_000_000;

/** Upper bound of input tokens for a prompt: a token is never shorter than one UTF-8 byte. */
export function maxInputTokens(prompt: string): number {
  return new TextEncoder().encode(prompt).length;
}

function tokenCost(model: ModelDescriptor, usage: TokenUsage): number {
  const p = model.pricing;
  if (p.kind !== 'per_token') throw new Error(`model ${model.id} is not priced per token`);
  return mulDivCeil(usage.inputTokens, p.inputPerMillionTokens, PER_MILLION) + mulDivCeil(usage.outputTokens, p.outputPerMillionTokens, PER_MILLION);
}

/**
 * The price held before a run, in micro-credits. For chat it is the worst case
 * (every prompt byte a token, max_tokens output); the actual cost is charged from the usage.
 */
export function quoteRun(model: ModelDescriptor, req: NormalizedRequest): number {
  const p = model.pricing;
  switch (req.modality) {
    case 'chat':
      return tokenCost(model, { inputTokens: maxInputTokens(req.prompt), outputTokens: req.maxTokens });
    case 'image': {
      if (p.kind !== 'per_image') throw new Error(`model ${model.id} is not priced per image`);
      return req.width * req.height > ONE_MEGAPIXEL ? (p.perLargeImage ?? p.perImage) : p.perImage;
    }
    case 'video': {
      if (p.kind !== 'per_second') throw new Error(`model ${model.id} is not priced per second`);
      return p.perSecond[req.resolution] * req.duration;
    }
  }
}

/** The amount charged on success: from the usage for chat (never more than the quote), else the quote. */
export function actualCost(model: ModelDescriptor, req: NormalizedRequest, quotedMicro: number, usage: TokenUsage | undefined): number {
  if (req.modality === 'chat' && usage !== undefined) return Math.min(quotedMicro, tokenCost(model, usage));
  return quotedMicro;
}
