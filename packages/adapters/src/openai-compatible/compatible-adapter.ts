import '../kit/empty-env-guard.js'; // before any @ai-sdk provider package: see the file
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createOpenAICompatible, type OpenAICompatibleProvider } from '@ai-sdk/openai-compatible';
import type { AdapterAvailability, AdapterCall, GenerationResult, NormalizedChatRequest } from '@gengate/core/adapter';
import { keyAvailability, type SdkErrorContext, runChat, SdkAdapter } from '../kit/index.js';
import { refineOpenAIError } from '../openai/openai-errors.js';
import type { CompatibleProviderConfig } from './compatible-config.js';
import { compatibleChatSettings, reportedCostMicroUsd } from './compatible-mapping.js';
import { compatibleModels } from './compatible-models.js';

export interface CompatibleConnection {
  /** The value of the provider's `apiKeyEnv` variable, when it declares one. */
  readonly apiKey?: string;
  /** Overrides the declared base URL (tests). */
  readonly baseURL?: string;
  readonly fetch?: typeof fetch;
}

function availability(config: CompatibleProviderConfig, apiKey: string | undefined): AdapterAvailability {
  return config.apiKeyEnv === undefined ? { available: true } : keyAvailability(config.id, apiKey, config.apiKeyEnv);
}

/** Any server speaking OpenAI's /v1/chat/completions, declared by the operator, through @ai-sdk/openai-compatible. */
export class OpenAICompatibleAdapter extends SdkAdapter {
  private readonly sdk: OpenAICompatibleProvider;
  private readonly secrets: readonly string[];
  readonly displayName: string;
  readonly baseURL: string;

  constructor(config: CompatibleProviderConfig, connection: CompatibleConnection = {}) {
    super(config.id, compatibleModels(config), availability(config, connection.apiKey));
    this.displayName = config.name;
    this.baseURL = connection.baseURL ?? config.baseURL;
    this.secrets = connection.apiKey ? [connection.apiKey] : [];
    this.sdk = createOpenAICompatible({
      name: config.id,
      baseURL: this.baseURL,
      // A streamed call always asks for usage (stream_options.include_usage): it is what the charge is computed from.
      includeUsage: true,
      ...(connection.apiKey ? { apiKey: connection.apiKey } : {}),
      ...(connection.fetch ? { fetch: connection.fetch } : {}),
    });
  }

  protected chatLanguageModel(upstream: string): LanguageModelV4 {
    return this.sdk.chatModel(upstream);
  }

  protected errorContext(): SdkErrorContext {
    return { secrets: this.secrets, refine: refineOpenAIError };
  }

  protected chat(call: AdapterCall, req: NormalizedChatRequest): Promise<GenerationResult> {
    const { settings, warnings } = compatibleChatSettings(req);
    return runChat(this.sdk.chatModel(this.upstreamModel(call.model.id)), settings, {
      abortSignal: call.abortSignal,
      warnings,
      secrets: this.secrets,
      refine: refineOpenAIError,
      reportedCost: reportedCostMicroUsd,
    });
  }
}

export function createOpenAICompatibleAdapter(config: CompatibleProviderConfig, connection: CompatibleConnection = {}): OpenAICompatibleAdapter {
  return new OpenAICompatibleAdapter(config, connection);
}
