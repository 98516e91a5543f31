import type { ChatCapabilities, PriceSource } from '@gengate/core/adapter';
import { z } from 'zod';
import { asProviderParams, type SdkModelEntry } from '../kit/index.js';

export const ANTHROPIC_PROVIDER_ID = 'anthropic';
/** The API root the SDK is given when no base URL is configured (never read from the process environment). */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';
export const ANTHROPIC_KEY_SETTING = 'ANTHROPIC_API_KEY';

/*
 * Models and prices from Anthropic's model pages and price list, taken on 2026-11-23
 * (https://platform.claude.com/docs/en/about-claude/models/overview): Claude Sonnet 5.5 and Claude
 * Haiku 5.5 are the current Sonnet and Haiku; Claude Haiku 4.5 is a legacy model that still takes
 * temperature. Claude 5.x models answer 400 to non-default temperature, top_p or top_k, so gengate
 * refuses those parameters for them before any hold; their thinking is adaptive, steered by `effort`.
 */
const source = (page: string, note: string): PriceSource => ({ url: `https://platform.claude.com/docs/en/models/${page}/overview`, retrievedOn: '2026-11-23', note });

/** Claude 5.x: how much effort the model spends on thinking and answering. */
export const claudeEffortParams = z.strictObject({
  effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).optional(),
});

/**
 * Claude Haiku 4.5: extended thinking with a token budget. The budget is part of `max_tokens` (what is
 * held), so it must be less than `llm_params.max_tokens`; temperature and top_p do not apply while thinking.
 */
export const claudeThinkingParams = z.strictObject({
  thinking_budget: z.number().int().min(1_024).max(63_000).optional(),
});

const base = { provider: ANTHROPIC_PROVIDER_ID, isActive: true, modality: 'chat' } as const;

/**
 * Prompt-caching prices (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#pricing): a cache
 * hit costs 0.1x the input price, a 5-minute cache write 1.25x. Anthropic reports writes without their TTL in
 * the usage gengate reads, so 1-hour writes (2x) are charged at the 5-minute price.
 */
const cachePrices = (input: number) => ({ cachedInputPerMillionTokens: input / 10, cacheWriteInputPerMillionTokens: (input * 5) / 4 });
const CACHE_NOTE = 'cache reads 0.1x and cache writes 1.25x the input price (1-hour writes charged as 5-minute ones).';

const claude5: ChatCapabilities = {
  modality: 'chat',
  promptRequired: true,
  maxOutputTokens: 128_000,
  defaultMaxTokens: 4_096,
  temperature: null,
  supportsTopP: false,
  supportsSystem: true,
  contextWindow: 1_000_000,
};

export const ANTHROPIC_MODELS: readonly SdkModelEntry[] = [
  {
    upstream: 'claude-sonnet-5-5',
    descriptor: {
      ...base,
      id: 'anthropic.claude-sonnet-5-5',
      name: 'Claude Sonnet 5.5',
      description: 'Anthropic Claude Sonnet 5.5: the current Sonnet, speed and intelligence combined; 1M-token context, adaptive thinking (provider_params.effort).',
      tags: ['anthropic', 'claude', 'chat', 'text'],
      isPopular: true,
      capabilities: claude5,
      pricing: { kind: 'per_token', inputPerMillionTokens: 2_000_000, outputPerMillionTokens: 10_000_000, ...cachePrices(2_000_000) },
      priceSource: source('sonnet-5-5', `Input $2 / output $10 per 1M tokens; thinking tokens are billed as output; ${CACHE_NOTE} Batch prices are not used.`),
      providerParams: asProviderParams(claudeEffortParams),
      pollIntervalSeconds: 1,
    },
  },
  {
    upstream: 'claude-haiku-5-5',
    descriptor: {
      ...base,
      id: 'anthropic.claude-haiku-5-5',
      name: 'Claude Haiku 5.5',
      description: 'Anthropic Claude Haiku 5.5: the current Haiku, fastest and cheapest, for classification, extraction and routing; adaptive thinking (provider_params.effort).',
      tags: ['anthropic', 'claude', 'chat', 'text', 'fast'],
      isPopular: true,
      capabilities: claude5,
      pricing: {
        kind: 'per_token',
        inputPerMillionTokens: 100_000,
        outputPerMillionTokens: 500_000,
        ...cachePrices(100_000),
        longContext: { aboveInputTokens: 100_000, inputPerMillionTokens: 500_000, outputPerMillionTokens: 2_500_000, ...cachePrices(500_000) },
      },
      priceSource: source(
        'haiku-5-5',
        `Input $0.10 / output $0.50 per 1M tokens for prompts up to 100,000 tokens; longer prompts cost $0.50 / $2.50 for the whole request; ${CACHE_NOTE} 64,000 characters of prompt and system text can be up to 192,000 tokens, so a long request is held at the long prices.`,
      ),
      providerParams: asProviderParams(claudeEffortParams),
      pollIntervalSeconds: 1,
    },
  },
  {
    upstream: 'claude-haiku-4-5',
    descriptor: {
      ...base,
      id: 'anthropic.claude-haiku-4-5',
      name: 'Claude Haiku 4.5',
      description: 'Anthropic Claude Haiku 4.5 (legacy): temperature 0..1 or top_p (not both), extended thinking with a token budget (provider_params.thinking_budget).',
      tags: ['anthropic', 'claude', 'chat', 'text', 'fast'],
      isPopular: false,
      capabilities: {
        modality: 'chat',
        promptRequired: true,
        maxOutputTokens: 64_000,
        defaultMaxTokens: 4_096,
        temperature: { min: 0, max: 1 },
        supportsTopP: true,
        exclusiveTemperatureTopP: true,
        supportsSystem: true,
        contextWindow: 200_000,
      },
      pricing: { kind: 'per_token', inputPerMillionTokens: 1_000_000, outputPerMillionTokens: 5_000_000, ...cachePrices(1_000_000) },
      priceSource: source('haiku-4-5', `Input $1 / output $5 per 1M tokens; thinking tokens are billed as output; ${CACHE_NOTE}`),
      providerParams: asProviderParams(claudeThinkingParams),
      pollIntervalSeconds: 1,
    },
  },
];
