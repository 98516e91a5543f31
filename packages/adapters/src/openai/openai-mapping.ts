import type { NormalizedChatRequest, NormalizedImageRequest } from '@gengate/core/adapter';
import { z } from 'zod';
import type { ChatSettings, ImageSettings, Mapped } from '../kit/index.js';
import { gptImage15Params, openAIChatParams } from './openai-models.js';

/*
 * gengate's request -> the AI SDK call for OpenAI (pure). Chat goes to /v1/chat/completions:
 * temperature, top_p, max_tokens, a system message, and the provider params frequency_penalty,
 * presence_penalty, stop and seed. Images go to /v1/images/generations: the size chosen from
 * width/height/aspect_ratio, n, and quality/background/output_format/moderation.
 */

export function openAIChatSettings(req: NormalizedChatRequest): Mapped<ChatSettings> {
  const p = openAIChatParams.parse(req.providerParams);
  return {
    settings: {
      prompt: req.prompt,
      ...(req.system !== null ? { system: req.system } : {}),
      ...(req.temperature !== null ? { temperature: req.temperature } : {}),
      ...(req.topP !== null ? { topP: req.topP } : {}),
      maxOutputTokens: req.maxTokens,
      ...(p.frequency_penalty !== undefined ? { frequencyPenalty: p.frequency_penalty } : {}),
      ...(p.presence_penalty !== undefined ? { presencePenalty: p.presence_penalty } : {}),
      ...(p.stop !== undefined ? { stopSequences: p.stop } : {}),
      ...(p.seed !== undefined ? { seed: p.seed } : {}),
    },
    warnings: [],
  };
}

export function openAIImageSettings(req: NormalizedImageRequest): Mapped<ImageSettings> {
  // Validated (and defaulted) by the model's own schema before the hold; parsed again here for its types.
  const p = gptImage15Params.parse(req.providerParams);
  const openai: Record<string, string> = { quality: p.quality };
  if (p.background !== undefined) openai['background'] = p.background;
  if (p.output_format !== undefined) openai['outputFormat'] = p.output_format;
  if (p.moderation !== undefined) openai['moderation'] = p.moderation;
  return {
    settings: {
      prompt: req.prompt ?? '',
      n: req.n,
      size: `${req.width}x${req.height}`,
      providerOptions: { openai },
    },
    warnings: [],
  };
}

/** The per-image metadata @ai-sdk/openai hands on from the Images API's `usage.input_tokens_details`. */
const imageTokenMetadata = z.object({
  openai: z.object({
    images: z.array(z.looseObject({ textTokens: z.number().int().min(0).optional(), imageTokens: z.number().int().min(0).optional() })),
  }),
});

/**
 * The input tokens of an Images API answer, split into text and image (OpenAI's
 * `usage.input_tokens_details.text_tokens` / `image_tokens`, https://platform.openai.com/docs/api-reference/images/object):
 * the SDK spreads them over the images, so the sum is the call's total. Null when the answer had no split.
 */
export function openAIImageInputTokens(providerMetadata: unknown): { text: number; image: number } | null {
  const parsed = imageTokenMetadata.safeParse(providerMetadata);
  if (!parsed.success) return null;
  const images = parsed.data.openai.images;
  if (!images.some((i) => i.textTokens !== undefined || i.imageTokens !== undefined)) return null;
  let text = 0;
  let image = 0;
  for (const i of images) {
    text += i.textTokens ?? 0;
    image += i.imageTokens ?? 0;
  }
  return { text, image };
}
