import { ADAPTER_SPECIFICATION_VERSION, type AdapterCall, type LanguageModelPreference, type ProviderAdapter } from '../ports/provider-adapter.js';
import { defaultPollDelayMs } from '../execution/retry-policy.js';

/**
 * One provider served by several adapters (Google's Gemini models through one SDK path, its Veo models
 * through another): one catalog entry per provider, each call routed to the adapter that declares the model.
 * The parts must share the provider id and, since they share credentials, their availability.
 */
export function composeAdapters(parts: readonly ProviderAdapter[]): ProviderAdapter {
  const first = parts[0];
  if (!first) throw new Error('composeAdapters needs at least one adapter');
  for (const p of parts) if (p.providerId !== first.providerId) throw new Error(`cannot compose ${p.providerId} with ${first.providerId}`);
  const owner = new Map(parts.flatMap((p) => p.models.map((m) => [m.id, p] as const)));
  const of = (modelId: string): ProviderAdapter => {
    const p = owner.get(modelId);
    if (!p) throw new Error(`no part of ${first.providerId} serves ${modelId}`);
    return p;
  };
  const at = (call: AdapterCall) => of(call.model.id);
  const hooked = parts.find((p) => p.verifyWebhook && p.readWebhook && p.jobIdOf);
  // v3 streaming: the parts share credentials, so one classifier serves the provider's language models.
  const streaming = parts.find((p) => p.languageModel);
  const classifier = parts.find((p) => p.upstreamError);
  const unavailable = parts.find((p) => p.availability && !p.availability.available)?.availability;
  return {
    specificationVersion: ADAPTER_SPECIFICATION_VERSION,
    providerId: first.providerId,
    models: parts.flatMap((p) => p.models),
    ...(unavailable ? { availability: unavailable } : first.availability ? { availability: first.availability } : {}),
    trustedOrigins: [...new Set(parts.flatMap((p) => p.trustedOrigins ?? []))],
    isLongRunning: (modelId) => of(modelId).isLongRunning(modelId),
    generate: (call) => {
      const p = at(call);
      if (!p.generate) throw new Error(`${call.model.id} has no generate()`);
      return p.generate(call);
    },
    start: (call) => {
      const p = at(call);
      if (!p.start) throw new Error(`${call.model.id} has no start()`);
      return p.start(call);
    },
    status: (handle, call) => {
      const p = at(call);
      if (!p.status) throw new Error(`${call.model.id} has no status()`);
      return p.status(handle, call);
    },
    cancel: async (handle, call) => {
      await at(call).cancel?.(handle, call);
    },
    ...(streaming ? { languageModel: (modelId: string, preference?: LanguageModelPreference) => of(modelId).languageModel?.(modelId, preference) ?? missing(modelId) } : {}),
    ...(classifier?.upstreamError ? { upstreamError: classifier.upstreamError.bind(classifier) } : {}),
    pollDelayMs: (n, model) => of(model.id).pollDelayMs?.(n, model) ?? defaultPollDelayMs(n),
    ...(hooked
      ? {
          verifyWebhook: (request, signal) => hooked.verifyWebhook?.(request, signal) ?? Promise.resolve(),
          readWebhook: (payload, call) => at(call).readWebhook?.(payload, call) ?? null,
          jobIdOf: (handle) => hooked.jobIdOf?.(handle) ?? '',
        }
      : {}),
  };
}

function missing(modelId: string): never {
  throw new Error(`${modelId} has no languageModel()`);
}
