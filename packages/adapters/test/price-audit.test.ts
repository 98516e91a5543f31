import { normalizeRunRequest, PriceBook, RUN_LIMITS, type ModelDescriptor, type RunRequest } from '@gengate/core/adapter';
import { describe, expect, it } from 'vitest';
import { builtInCatalogAdapters, createOpenAICompatibleAdapter, OPENROUTER_CLAUDE_PRESET } from '../src/index.js';
import { compatibleProvidersSchema } from '../src/openai-compatible/compatible-config.js';

/*
 * The price audit (issue 18 item 3): for every model of every adapter, the largest input the model
 * accepts, and what the upstream's documentation says that input costs, with the page it says it on.
 * The hold gengate takes before the call must be at least that cost: a user can never run up an
 * upstream bill larger than what was held from their balance.
 *
 * "Largest input": a prompt (and system text, where accepted) at the length limit, written in a
 * 3-byte UTF-8 character, so the documented upper bound on text tokens (a token is never shorter than
 * one byte) is 3 x the limit; every count (n, duration, max_tokens) at its maximum; the priciest
 * resolution, size and quality; every accepted reference input.
 */

/** One 3-byte UTF-8 character, one UTF-16 unit: the most bytes a string of the length limit can hold. */
const WIDE = '€';
const PROMPT = WIDE.repeat(RUN_LIMITS.maxPromptLength);
const SYSTEM = WIDE.repeat(RUN_LIMITS.maxSystemLength);
/** The documented upper bound of text tokens in a prompt at the limit (one token per UTF-8 byte). */
const PROMPT_TOKENS = 3 * RUN_LIMITS.maxPromptLength;
const SYSTEM_TOKENS = 3 * RUN_LIMITS.maxSystemLength;
const IMAGE_URL = 'https://example.com/first-frame.png';

/** Micro-USD of `tokens` at a documented price in USD per 1M tokens. */
const perM = (tokens: number, usdPerMillion: number): number => tokens * usdPerMillion;
/** Micro-USD of a documented USD amount. */
const usd = (amount: number): number => Math.round(amount * 1_000_000);

interface AuditRow {
  readonly model: string;
  /** The largest request the model accepts. */
  readonly request: RunRequest;
  /** The upstream's documented cost of that request, micro-USD. */
  readonly documentedMicroUsd: number;
  /** The documented prices the cost is worked out from, and the page. */
  readonly source: string;
  /** What the documented cost leaves out because no hold can bound it honestly (shown in docs/billing.md). */
  readonly unbounded?: string;
}

const chatMax = (maxTokens: number, system = true): RunRequest => ({ prompt: PROMPT, llm_params: { max_tokens: maxTokens, ...(system ? { system: SYSTEM } : {}) } });
const CHAT_IN = PROMPT_TOKENS + SYSTEM_TOKENS;

const OPENAI = 'https://developers.openai.com/api/docs/pricing';
const GPT_IMAGE_2 = 'https://developers.openai.com/api/docs/models/gpt-image-2';
const GPT_IMAGE_15 = 'https://developers.openai.com/api/docs/models/gpt-image-1.5';
const CLAUDE = (page: string) => `https://platform.claude.com/docs/en/models/${page}/overview`;
const GEMINI = 'https://ai.google.dev/gemini-api/docs/pricing';
const RUNWAY = 'https://docs.dev.runwayml.com/guides/pricing/';

export const PRICE_AUDIT: readonly AuditRow[] = [
  // sandbox: runs offline inside gengate; nothing is billed upstream.
  { model: 'sandbox.echo-chat', request: chatMax(4_096), documentedMicroUsd: 0, source: 'no upstream: the sandbox runs offline and costs nothing upstream' },
  { model: 'sandbox.pixel-image', request: { prompt: PROMPT, image_params: { width: 2_048, height: 2_048, n: 4, image_urls: [IMAGE_URL, IMAGE_URL, IMAGE_URL, IMAGE_URL] } }, documentedMicroUsd: 0, source: 'no upstream: offline' },
  { model: 'sandbox.motion-video', request: { prompt: PROMPT, video_params: { duration: 10, resolution: '1080p', image_urls: [IMAGE_URL] } }, documentedMicroUsd: 0, source: 'no upstream: offline' },
  { model: 'sandbox.always-fail', request: { prompt: PROMPT, image_params: { width: 2_048, height: 2_048 } }, documentedMicroUsd: 0, source: 'no upstream: offline' },

  // OpenAI chat: input $/1M x every prompt and system token + output $/1M x max_tokens.
  { model: 'openai.gpt-4.1', request: chatMax(32_768), documentedMicroUsd: perM(CHAT_IN, 2) + perM(32_768, 8), source: `${OPENAI}: gpt-4.1 input $2.00, output $8.00 per 1M` },
  { model: 'openai.gpt-4.1-mini', request: chatMax(32_768), documentedMicroUsd: perM(CHAT_IN, 0.4) + perM(32_768, 1.6), source: `${OPENAI}: input $0.40, output $1.60 per 1M` },
  { model: 'openai.gpt-4o', request: chatMax(16_384), documentedMicroUsd: perM(CHAT_IN, 2.5) + perM(16_384, 10), source: `${OPENAI}: input $2.50, output $10.00 per 1M` },
  { model: 'openai.gpt-4o-mini', request: chatMax(16_384), documentedMicroUsd: perM(CHAT_IN, 0.15) + perM(16_384, 0.6), source: `${OPENAI}: input $0.15, output $0.60 per 1M` },
  // GPT Image: n images in ONE call (n <= 10), so the prompt's text tokens are billed once, plus each image's output.
  {
    model: 'openai.gpt-image-2',
    request: { prompt: PROMPT, provider_params: { quality: 'high' }, image_params: { aspect_ratio: '1:1', n: 10 } },
    documentedMicroUsd: perM(PROMPT_TOKENS, 5) + 10 * usd(0.211),
    source: `${GPT_IMAGE_2}: text input $5.00 per 1M; high 1024x1024 $0.211 per image (image output $30 per 1M)`,
  },
  {
    model: 'openai.gpt-image-1.5',
    request: { prompt: PROMPT, provider_params: { quality: 'high' }, image_params: { aspect_ratio: '2:3', n: 10 } },
    documentedMicroUsd: perM(PROMPT_TOKENS, 5) + 10 * usd(0.2),
    source: `${GPT_IMAGE_15}: text input $5.00 per 1M; high 1024x1536 $0.200 per image (image output $32 per 1M)`,
  },

  // Anthropic: thinking tokens are output and count within max_tokens.
  { model: 'anthropic.claude-sonnet-5-5', request: chatMax(128_000), documentedMicroUsd: perM(CHAT_IN, 2) + perM(128_000, 10), source: `${CLAUDE('sonnet-5-5')}: input $2, output $10 per 1M` },
  {
    model: 'anthropic.claude-haiku-5-5',
    request: chatMax(128_000),
    // 192,000 input tokens is above the 100,000-token threshold: the long-prompt prices apply to the whole request.
    documentedMicroUsd: perM(CHAT_IN, 0.5) + perM(128_000, 2.5),
    source: `${CLAUDE('haiku-5-5')}: $0.10 / $0.50 per 1M up to 100,000 prompt tokens, $0.50 / $2.50 above`,
  },
  { model: 'anthropic.claude-haiku-4-5', request: chatMax(64_000), documentedMicroUsd: perM(CHAT_IN, 1) + perM(64_000, 5), source: `${CLAUDE('haiku-4-5')}: input $1, output $5 per 1M` },

  // Google Gemini chat: output includes thinking, within maxOutputTokens.
  { model: 'google.gemini-3.5-flash', request: chatMax(65_536), documentedMicroUsd: perM(CHAT_IN, 1.5) + perM(65_536, 9), source: `${GEMINI}: input $1.50, output $9.00 per 1M` },
  { model: 'google.gemini-3.5-flash-lite', request: chatMax(65_536), documentedMicroUsd: perM(CHAT_IN, 0.3) + perM(65_536, 2.5), source: `${GEMINI}: input $0.30, output $2.50 per 1M` },
  // Gemini image: one generateContent call per image (the AI SDK sends n calls), each billing the prompt's text.
  {
    model: 'google.gemini-3-pro-image',
    request: { prompt: PROMPT, image_params: { aspect_ratio: '16:9', n: 4 } },
    documentedMicroUsd: 4 * (perM(PROMPT_TOKENS, 2) + usd(0.134)),
    source: `${GEMINI}: text input $2.00 per 1M; a 1K image is 1,120 output tokens at $120 per 1M = $0.134`,
    unbounded: 'thinking tokens (text output, $12 per 1M): Google sets no budget the call can cap',
  },
  {
    model: 'google.gemini-3.1-flash-image',
    request: { prompt: PROMPT, image_params: { aspect_ratio: '16:9', n: 4 } },
    documentedMicroUsd: 4 * (perM(PROMPT_TOKENS, 0.5) + usd(0.067)),
    source: `${GEMINI}: text input $0.50 per 1M; a 1K image is 1,120 output tokens at $60 per 1M = $0.067`,
    unbounded: 'thinking tokens (text output, $3 per 1M)',
  },
  // Veo on the Gemini API: billed per second of video; the prompt and the first frame are not billed.
  { model: 'google.veo-3', request: { prompt: PROMPT, video_params: { duration: 8, resolution: '1080p', aspect_ratio: '16:9', image_urls: [IMAGE_URL] } }, documentedMicroUsd: 8 * usd(0.4), source: `${GEMINI}: Veo 3 $0.40 per second` },
  { model: 'google.veo-3-fast', request: { prompt: PROMPT, video_params: { duration: 8, resolution: '1080p', image_urls: [IMAGE_URL] } }, documentedMicroUsd: 8 * usd(0.15), source: `${GEMINI}: Veo 3 Fast $0.15 per second` },
  { model: 'google.veo-2', request: { prompt: PROMPT, video_params: { duration: 8, resolution: '720p', image_urls: [IMAGE_URL] } }, documentedMicroUsd: 8 * usd(0.35), source: `${GEMINI}: Veo 2 $0.35 per second` },

  // fal: per second of video or per megapixel of image, whatever the prompt.
  {
    model: 'fal.kling-v2.1-master',
    request: { prompt: PROMPT.slice(0, 2_500), video_params: { duration: 10, resolution: '1080p', image_urls: [IMAGE_URL] } },
    documentedMicroUsd: usd(1.4) + 5 * usd(0.28),
    source: 'https://fal.ai/models/fal-ai/kling-video/v2.1/master/text-to-video/llms.txt: $1.40 for 5 s, $0.28 per further second',
  },
  {
    model: 'fal.veo3-fast',
    request: { prompt: PROMPT, video_params: { duration: 8, resolution: '1080p', image_urls: [IMAGE_URL] }, provider_params: { generate_audio: true } },
    documentedMicroUsd: 8 * usd(0.15),
    source: 'https://fal.ai/models/fal-ai/veo3/fast/llms.txt: $0.15 per second with audio',
  },
  {
    model: 'fal.hailuo-02-standard',
    request: { prompt: PROMPT, video_params: { duration: 10, resolution: '768p', image_urls: [IMAGE_URL] } },
    documentedMicroUsd: 10 * usd(0.045),
    source: 'https://fal.ai/models/fal-ai/minimax/hailuo-02/standard/text-to-video: $0.045 per second',
  },
  { model: 'fal.flux-dev', request: { prompt: PROMPT, image_params: { width: 2_048, height: 2_048, n: 4 } }, documentedMicroUsd: 4 * 4 * usd(0.025), source: 'https://fal.ai/models/fal-ai/flux/dev: $0.025 per megapixel (4 MP each)' },
  { model: 'fal.flux-schnell', request: { prompt: PROMPT, image_params: { width: 2_048, height: 2_048, n: 4 } }, documentedMicroUsd: 4 * 4 * usd(0.003), source: 'https://fal.ai/models/fal-ai/flux/schnell: $0.003 per megapixel' },

  // Replicate: official models billed per second of video or per output image.
  { model: 'replicate.kling-v2.1', request: { prompt: PROMPT, video_params: { duration: 10, resolution: '1080p', image_urls: [IMAGE_URL] } }, documentedMicroUsd: 10 * usd(0.09), source: 'https://replicate.com/kwaivgi/kling-v2.1: pro 1080p $0.09 per second' },
  {
    model: 'replicate.kling-v2.1-master',
    request: { prompt: PROMPT, video_params: { duration: 10, resolution: '1080p', image_urls: [IMAGE_URL] }, provider_params: { negative_prompt: PROMPT } },
    documentedMicroUsd: 10 * usd(0.28),
    source: 'https://replicate.com/kwaivgi/kling-v2.1-master: $0.28 per second of output video',
  },
  {
    model: 'replicate.hailuo-02',
    request: { prompt: PROMPT, video_params: { duration: 10, resolution: '1080p', image_urls: [IMAGE_URL] } },
    // 1080p 10 s is refused by the adapter before any call (1080p renders 6 s only): the priciest that runs is 6 s at 1080p ($0.48) < 10 s x $0.08 held.
    documentedMicroUsd: 10 * usd(0.08),
    source: 'https://replicate.com/minimax/hailuo-02: $0.08 per second at 1080p',
  },
  { model: 'replicate.flux-schnell', request: { prompt: PROMPT, image_params: { aspect_ratio: '16:9', n: 4 } }, documentedMicroUsd: 4 * usd(0.003), source: 'https://replicate.com/black-forest-labs/flux-schnell: $0.003 per image' },
  { model: 'replicate.flux-dev', request: { prompt: PROMPT, image_params: { aspect_ratio: '16:9', n: 4 } }, documentedMicroUsd: 4 * usd(0.025), source: 'https://replicate.com/black-forest-labs/flux-dev: $0.025 per image' },

  // Runway: credits per second, $0.01 per credit.
  { model: 'runway.gen4-turbo', request: { prompt: PROMPT.slice(0, 1_000), video_params: { duration: 10, image_urls: [IMAGE_URL] } }, documentedMicroUsd: 10 * 5 * usd(0.01), source: `${RUNWAY}: gen4_turbo 5 credits per second` },
  { model: 'runway.gen4.5', request: { prompt: PROMPT.slice(0, 1_000), video_params: { duration: 10, image_urls: [IMAGE_URL] } }, documentedMicroUsd: 10 * 12 * usd(0.01), source: `${RUNWAY}: gen4.5 12 credits per second` },
  { model: 'runway.veo3', request: { prompt: PROMPT.slice(0, 1_000), video_params: { duration: 8, resolution: '1080p' } }, documentedMicroUsd: 8 * 40 * usd(0.01), source: `${RUNWAY}: veo3 40 credits per second` },

  // The Claude family's reseller route (a preset the operator adds): OpenRouter at Anthropic's list price.
  {
    model: 'openrouter.claude-haiku-4.5',
    request: chatMax(64_000),
    documentedMicroUsd: perM(CHAT_IN, 1) + perM(64_000, 5),
    source: 'https://openrouter.ai/anthropic/claude-haiku-4.5: input $1, output $5 per 1M (Anthropic\'s list price, passed through)',
  },

  // An operator-declared OpenAI-compatible provider: its prices are what the operator declares for it.
  {
    model: 'fakecompat.chat-model',
    request: chatMax(8_192),
    documentedMicroUsd: perM(CHAT_IN, 0.13) + perM(8_192, 0.4),
    source: 'operator configuration (here: https://openrouter.ai/meta-llama/llama-3.3-70b-instruct, $0.13 / $0.40 per 1M)',
  },
];

const [compatConfig] = compatibleProvidersSchema.parse([
  {
    id: 'fakecompat',
    name: 'Fake compatible server',
    baseURL: 'http://127.0.0.1:9/v1',
    models: [
      {
        id: 'chat-model',
        name: 'Compatible chat model',
        capabilities: { maxOutputTokens: 8_192, contextWindow: 131_072 },
        pricing: { inputPerMillionTokens: 130_000, outputPerMillionTokens: 400_000 },
        priceSource: { url: 'https://openrouter.ai/meta-llama/llama-3.3-70b-instruct', retrievedOn: '2026-11-23' },
      },
    ],
  },
]);

function everyModel(): ModelDescriptor[] {
  if (!compatConfig) throw new Error('no compatible config');
  return [...builtInCatalogAdapters(), createOpenAICompatibleAdapter(compatConfig), createOpenAICompatibleAdapter(OPENROUTER_CLAUDE_PRESET)].flatMap((a) => [...a.models]);
}

describe('the price table over every model in the catalog', () => {
  const models = everyModel();
  const book = new PriceBook();

  it('has one row per catalog model, and no row for a model that is not in the catalog', () => {
    expect(PRICE_AUDIT.map((r) => r.model).sort()).toEqual(models.map((m) => m.id).sort());
  });

  it.each(PRICE_AUDIT.map((r) => [r.model, r] as const))('%s: the hold for its largest input covers the documented upstream cost', (id, row) => {
    const model = models.find((m) => m.id === id);
    if (!model) throw new Error(`${id} is not in the catalog`);
    const held = book.quote(model, normalizeRunRequest(model, row.request));
    // micro-credits (1e-8 USD) against micro-USD: x100
    expect(held.costMicro, `${id}: held ${held.costMicro / 100} micro-USD, documented ${row.documentedMicroUsd} (${row.source})`).toBeGreaterThanOrEqual(Math.ceil(row.documentedMicroUsd * 100));
  });
});
