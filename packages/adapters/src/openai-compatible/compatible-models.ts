import type { SdkModelEntry } from '../kit/index.js';
import type { CompatibleProviderConfig } from './compatible-config.js';

/** The catalog entries of an operator-declared OpenAI-compatible provider. */
export function compatibleModels(config: CompatibleProviderConfig): SdkModelEntry[] {
  return config.models.map((m) => ({
    upstream: m.upstreamModel ?? m.id,
    descriptor: {
      id: `${config.id}.${m.id}`,
      name: m.name,
      provider: config.id,
      modality: 'chat',
      description: m.description || `${m.name} on ${config.name} (an OpenAI-compatible server).`,
      tags: m.tags.length > 0 ? m.tags : [config.id, 'chat', 'text'],
      isPopular: m.isPopular,
      isActive: m.isActive,
      capabilities: {
        modality: 'chat',
        promptRequired: true,
        maxOutputTokens: m.capabilities.maxOutputTokens,
        defaultMaxTokens: m.capabilities.defaultMaxTokens ?? Math.min(1_024, m.capabilities.maxOutputTokens),
        temperature: m.capabilities.temperature,
        supportsTopP: m.capabilities.supportsTopP,
        exclusiveTemperatureTopP: m.capabilities.exclusiveTemperatureTopP,
        supportsSystem: m.capabilities.supportsSystem,
        ...(m.capabilities.contextWindow !== undefined ? { contextWindow: m.capabilities.contextWindow } : {}),
      },
      pricing: { kind: 'per_token', inputPerMillionTokens: m.pricing.inputPerMillionTokens, outputPerMillionTokens: m.pricing.outputPerMillionTokens },
      ...(m.priceSource ? { priceSource: { url: m.priceSource.url, retrievedOn: m.priceSource.retrievedOn, ...(m.priceSource.note ? { note: m.priceSource.note } : {}) } } : {}),
      pollIntervalSeconds: 1,
    },
  }));
}
