import { TOKENS, type AcceptedProviderAdapter, type ProviderAdapter } from '@gengate/core';
import { composeAdapters } from '@gengate/core/internal';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { createAnthropicAdapter } from '../anthropic/anthropic-adapter.js';
import { createFalAdapter, type FalAdapterOptions } from '../fal/fal-adapter.js';
import { createGoogleAdapter } from '../google/google-adapter.js';
import { createVeoAdapter, type VeoAdapterOptions } from '../google-veo/veo-adapter.js';
import type { ProviderConnection } from '../kit/credentials.js';
import { createOpenAIAdapter } from '../openai/openai-adapter.js';
import { createOpenAICompatibleAdapter, type CompatibleConnection } from '../openai-compatible/compatible-adapter.js';
import type { CompatibleProviderConfig } from '../openai-compatible/compatible-config.js';
import { createReplicateAdapter, type ReplicateAdapterOptions } from '../replicate/replicate-adapter.js';
import { createRunwayAdapter, type RunwayAdapterOptions } from '../runway/runway-adapter.js';
import { createSandboxAdapter, type SandboxAdapterOptions } from '../sandbox/sandbox-adapter.js';

/**
 * What the built-in adapters are built from: each provider's credentials, base URL and `fetch` (a provider
 * without its key is still served: its models are listed, inactive). Parse them at the edge (the
 * standalone server reads the environment with zod, `@gengate/host`'s server/providers.ts).
 */
export interface BuiltInAdapterSettings {
  /** The offline sandbox, served first; left out, it is not served. */
  readonly sandbox?: SandboxAdapterOptions;
  readonly openai?: ProviderConnection;
  readonly anthropic?: ProviderConnection;
  /** Gemini; Google's Veo models (`veo`) join it as one `google` provider. */
  readonly google?: ProviderConnection;
  readonly veo?: VeoAdapterOptions;
  readonly fal?: FalAdapterOptions;
  readonly replicate?: ReplicateAdapterOptions;
  readonly runway?: RunwayAdapterOptions;
  /** Servers that speak /v1/chat/completions, one provider each, in this order. */
  readonly compatible?: readonly { readonly config: CompatibleProviderConfig; readonly connection?: CompatibleConnection }[];
  /** Adapters of your own, served after the built-in ones. */
  readonly extra?: readonly AcceptedProviderAdapter[];
}

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`gengate.adapters.${name}`);

/** One token per built-in adapter (rebind one to replace that provider alone), and the list they make. */
export const ADAPTER_TOKENS = {
  Settings: token<BuiltInAdapterSettings>('Settings'),
  /** The sandbox, or null when the settings leave it out. */
  Sandbox: token<ProviderAdapter | null>('Sandbox'),
  OpenAI: token<ProviderAdapter>('OpenAI'),
  Anthropic: token<ProviderAdapter>('Anthropic'),
  Gemini: token<ProviderAdapter>('Gemini'),
  Veo: token<ProviderAdapter>('Veo'),
  /** Gemini and Veo composed: the `google` provider. */
  Google: token<ProviderAdapter>('Google'),
  Fal: token<ProviderAdapter>('Fal'),
  Replicate: token<ProviderAdapter>('Replicate'),
  Runway: token<ProviderAdapter>('Runway'),
  Compatible: token<readonly ProviderAdapter[]>('Compatible'),
  /** Every built-in provider in a stable order: the sandbox, OpenAI, Anthropic, Google, fal, Replicate, Runway, the compatible ones. */
  BuiltIn: token<readonly ProviderAdapter[]>('BuiltIn'),
} as const;

/**
 * The built-in adapters, each bound to its token from the settings it needs, and core's `TOKENS.Adapters`
 * (what the model registry receives): the built-in ones, then `extra`. Load it instead of giving
 * `adapters` as a constant; rebind one provider's token to replace that provider.
 *
 * Lifetimes: the settings are configuration (a constant); each adapter is a singleton of the container,
 * built on its first resolve (an adapter keeps its client and its in-flight state for the process).
 */
export function adaptersModule(settings: BuiltInAdapterSettings): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(ADAPTER_TOKENS.Settings).toConstantValue(settings);
    const S: [typeof ADAPTER_TOKENS.Settings] = [ADAPTER_TOKENS.Settings];
    bind(ADAPTER_TOKENS.Sandbox).toResolvedValue((s: BuiltInAdapterSettings) => (s.sandbox ? createSandboxAdapter(s.sandbox) : null), S).inSingletonScope();
    bind(ADAPTER_TOKENS.OpenAI).toResolvedValue((s: BuiltInAdapterSettings) => createOpenAIAdapter(s.openai), S).inSingletonScope();
    bind(ADAPTER_TOKENS.Anthropic).toResolvedValue((s: BuiltInAdapterSettings) => createAnthropicAdapter(s.anthropic), S).inSingletonScope();
    bind(ADAPTER_TOKENS.Gemini).toResolvedValue((s: BuiltInAdapterSettings) => createGoogleAdapter(s.google), S).inSingletonScope();
    bind(ADAPTER_TOKENS.Veo).toResolvedValue((s: BuiltInAdapterSettings) => createVeoAdapter(s.veo), S).inSingletonScope();
    bind(ADAPTER_TOKENS.Google)
      .toResolvedValue((gemini: ProviderAdapter, veo: ProviderAdapter) => composeAdapters([gemini, veo]), [ADAPTER_TOKENS.Gemini, ADAPTER_TOKENS.Veo])
      .inSingletonScope();
    bind(ADAPTER_TOKENS.Fal).toResolvedValue((s: BuiltInAdapterSettings) => createFalAdapter(s.fal), S).inSingletonScope();
    bind(ADAPTER_TOKENS.Replicate).toResolvedValue((s: BuiltInAdapterSettings) => createReplicateAdapter(s.replicate), S).inSingletonScope();
    bind(ADAPTER_TOKENS.Runway).toResolvedValue((s: BuiltInAdapterSettings) => createRunwayAdapter(s.runway), S).inSingletonScope();
    bind(ADAPTER_TOKENS.Compatible)
      .toResolvedValue((s: BuiltInAdapterSettings) => (s.compatible ?? []).map((c) => createOpenAICompatibleAdapter(c.config, c.connection)), S)
      .inSingletonScope();
    bind(ADAPTER_TOKENS.BuiltIn)
      .toResolvedValue(
        (sandbox: ProviderAdapter | null, ...rest: [ProviderAdapter, ProviderAdapter, ProviderAdapter, ProviderAdapter, ProviderAdapter, ProviderAdapter, readonly ProviderAdapter[]]) => {
          const [openai, anthropic, google, fal, replicate, runway, compatible] = rest;
          return [...(sandbox ? [sandbox] : []), openai, anthropic, google, fal, replicate, runway, ...compatible];
        },
        [
          ADAPTER_TOKENS.Sandbox, ADAPTER_TOKENS.OpenAI, ADAPTER_TOKENS.Anthropic, ADAPTER_TOKENS.Google, ADAPTER_TOKENS.Fal, ADAPTER_TOKENS.Replicate,
          ADAPTER_TOKENS.Runway, ADAPTER_TOKENS.Compatible,
        ],
      )
      .inSingletonScope();
    bind(TOKENS.Adapters)
      .toResolvedValue((builtIn: readonly ProviderAdapter[], s: BuiltInAdapterSettings): readonly AcceptedProviderAdapter[] => [...builtIn, ...(s.extra ?? [])], [ADAPTER_TOKENS.BuiltIn, ADAPTER_TOKENS.Settings])
      .inSingletonScope();
  });
}
