import { createGengateContainer, createMemoryStores, MemoryBlobStore, resolveGengate, TOKENS, type ProviderAdapter } from '@gengate/core';
import { describe, expect, it } from 'vitest';
import { createSandboxAdapter } from '../sandbox/sandbox-adapter.js';
import { ADAPTER_TOKENS, adaptersModule } from './adapters-module.js';

/** A container with memory ports whose adapters come from the adapters module instead of a constant. */
function containerWith(module: ReturnType<typeof adaptersModule>) {
  const { scope, uow } = createMemoryStores();
  const container = createGengateContainer({
    adapters: [],
    stores: scope,
    unitOfWork: uow,
    blobStore: new MemoryBlobStore(),
    resultUrls: { urlFor: (key) => `http://files.test/${key}` },
    paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
  });
  container.unbind(TOKENS.Adapters);
  container.load(module);
  return container;
}

describe('adaptersModule', () => {
  it('binds every built-in provider from its settings, in a stable order, and the registry serves their models', () => {
    const container = containerWith(adaptersModule({ sandbox: {}, openai: { apiKey: 'sk-test-0123456789' }, compatible: [] }));
    const adapters = container.get(TOKENS.Adapters);
    expect(adapters.map((a) => a.providerId)).toEqual(['sandbox', 'openai', 'anthropic', 'google', 'fal', 'replicate', 'runway']);
    const byId = new Map(adapters.map((a) => [a.providerId, a]));
    expect(byId.get('openai')?.availability?.available ?? true).toBe(true);
    expect(byId.get('anthropic')?.availability?.available).toBe(false);
    // Veo's models joined Gemini's as the one `google` provider.
    expect(byId.get('google')?.models.some((m) => m.id.includes('veo'))).toBe(true);
    const registry = resolveGengate(container).registry;
    expect(new Set(registry.all().map((m) => m.provider))).toEqual(new Set(adapters.map((a) => a.providerId)));
  });

  it('a provider rebound before the first resolve is what the registry serves; extra adapters come after the built-in ones', () => {
    // Adapters that serve no model: only their place in the list is checked.
    const empty = (providerId: string): ProviderAdapter => ({ specificationVersion: createSandboxAdapter().specificationVersion, providerId, models: [], isLongRunning: () => false });
    const container = containerWith(adaptersModule({ extra: [empty('mine')] }));
    container.rebind(ADAPTER_TOKENS.OpenAI).toConstantValue(empty('openai'));
    const adapters = container.get(TOKENS.Adapters);
    expect(adapters.map((a) => a.providerId)).toEqual(['openai', 'anthropic', 'google', 'fal', 'replicate', 'runway', 'mine']);
    expect(adapters[0]?.models).toEqual([]);
    expect(resolveGengate(container).registry.all().some((m) => m.provider === 'openai')).toBe(false);
  });
});
