import { compatibleProviderSchema, type CompatibleProviderConfig } from './compatible-config.js';

/**
 * A ready declaration of one OpenAI-compatible reseller of a Claude model: OpenRouter's
 * `anthropic/claude-haiku-4.5`, the second route of the `claude-haiku-4-5` family (its first is
 * `anthropic.claude-haiku-4-5`). A reseller is operator configuration (it needs the operator's account and
 * key), so it is not served by default: add this object to OPENAI_COMPATIBLE_PROVIDERS (or pass it as
 * `compatible` to `adaptersModule`) and set OPENROUTER_API_KEY; until then the family routes to Anthropic
 * alone. The limits are Anthropic's for the model (OpenRouter passes them through).
 */
export const OPENROUTER_CLAUDE_PRESET: CompatibleProviderConfig = compatibleProviderSchema.parse({
  id: 'openrouter',
  name: 'OpenRouter',
  baseURL: 'https://openrouter.ai/api/v1',
  apiKeyEnv: 'OPENROUTER_API_KEY',
  models: [
    {
      id: 'claude-haiku-4.5',
      upstreamModel: 'anthropic/claude-haiku-4.5',
      name: 'Claude Haiku 4.5 (OpenRouter)',
      description: 'Anthropic Claude Haiku 4.5 resold by OpenRouter through its OpenAI-compatible /chat/completions.',
      tags: ['openrouter', 'claude', 'chat', 'text'],
      capabilities: { maxOutputTokens: 64_000, defaultMaxTokens: 4_096, temperature: { min: 0, max: 1 }, exclusiveTemperatureTopP: true, contextWindow: 200_000 },
      pricing: { inputPerMillionTokens: 1_000_000, outputPerMillionTokens: 5_000_000 },
      priceSource: {
        url: 'https://openrouter.ai/anthropic/claude-haiku-4.5',
        retrievedOn: '2026-11-26',
        note: "OpenRouter resells at the provider's list price: input $1, output $5 per 1M tokens (Anthropic's own, https://platform.claude.com/docs/en/models/haiku-4-5/overview).",
      },
    },
  ],
});
