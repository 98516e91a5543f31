import '../kit/empty-env-guard.js'; // before any @ai-sdk provider package: see the file
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createAnthropic, type AnthropicProvider } from '@ai-sdk/anthropic';
import type { AdapterCall, GenerationResult, NormalizedChatRequest } from '@gengate/core/adapter';
import { keyAvailability, NO_KEY, type ProviderConnection, type SdkErrorContext, runChat, SdkAdapter } from '../kit/index.js';
import { refineAnthropicError } from './anthropic-errors.js';
import { anthropicChatSettings } from './anthropic-mapping.js';
import { ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_KEY_SETTING, ANTHROPIC_MODELS, ANTHROPIC_PROVIDER_ID } from './anthropic-models.js';

/** Anthropic through @ai-sdk/anthropic: chat on the Messages API (POST /v1/messages). */
export class AnthropicAdapter extends SdkAdapter {
  private readonly sdk: AnthropicProvider;
  private readonly secrets: readonly string[];

  constructor(connection: ProviderConnection = {}) {
    super(ANTHROPIC_PROVIDER_ID, ANTHROPIC_MODELS, keyAvailability(ANTHROPIC_PROVIDER_ID, connection.apiKey, connection.keySetting ?? ANTHROPIC_KEY_SETTING));
    this.secrets = connection.apiKey ? [connection.apiKey] : [];
    this.sdk = createAnthropic({
      apiKey: connection.apiKey || NO_KEY,
      baseURL: connection.baseURL || ANTHROPIC_DEFAULT_BASE_URL,
      ...(connection.fetch ? { fetch: connection.fetch } : {}),
    });
  }

  protected chatLanguageModel(upstream: string): LanguageModelV4 {
    return this.sdk.messages(upstream);
  }

  protected errorContext(): SdkErrorContext {
    return { secrets: this.secrets, refine: refineAnthropicError };
  }

  protected async chat(call: AdapterCall, req: NormalizedChatRequest): Promise<GenerationResult> {
    const { settings, warnings } = anthropicChatSettings(req);
    return runChat(this.sdk.messages(this.upstreamModel(call.model.id)), settings, {
      abortSignal: call.abortSignal,
      warnings,
      secrets: this.secrets,
      refine: refineAnthropicError,
    });
  }
}

export function createAnthropicAdapter(connection: ProviderConnection = {}): AnthropicAdapter {
  return new AnthropicAdapter(connection);
}
