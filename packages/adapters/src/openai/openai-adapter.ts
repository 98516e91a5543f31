import '../kit/empty-env-guard.js'; // before any @ai-sdk provider package: see the file
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai';
import type { AdapterCall, GenerationResult, LanguageModelPreference, NormalizedChatRequest, NormalizedImageRequest } from '@gengate/core/adapter';
import { keyAvailability, NO_KEY, type ProviderConnection, type SdkErrorContext, runChat, runImage, SdkAdapter } from '../kit/index.js';
import { refineOpenAIError } from './openai-errors.js';
import { openAIChatSettings, openAIImageInputTokens, openAIImageSettings } from './openai-mapping.js';
import { OPENAI_DEFAULT_BASE_URL, OPENAI_KEY_SETTING, OPENAI_MODELS, OPENAI_PROVIDER_ID } from './openai-models.js';

/** OpenAI through @ai-sdk/openai: chat on /v1/chat/completions (on /v1/responses for gengate's own Responses calls), images on /v1/images/generations. */
export class OpenAIAdapter extends SdkAdapter {
  private readonly sdk: OpenAIProvider;
  private readonly secrets: readonly string[];

  constructor(connection: ProviderConnection = {}) {
    super(OPENAI_PROVIDER_ID, OPENAI_MODELS, keyAvailability(OPENAI_PROVIDER_ID, connection.apiKey, connection.keySetting ?? OPENAI_KEY_SETTING));
    this.secrets = connection.apiKey ? [connection.apiKey] : [];
    this.sdk = createOpenAI({
      apiKey: connection.apiKey || NO_KEY,
      baseURL: connection.baseURL || OPENAI_DEFAULT_BASE_URL,
      ...(connection.fetch ? { fetch: connection.fetch } : {}),
    });
  }

  /** Chat Completions, except for a Responses call (`/v1/responses`), which goes to OpenAI's Responses API so reasoning items survive. */
  protected chatLanguageModel(upstream: string, preference?: LanguageModelPreference): LanguageModelV4 {
    return preference?.wire === 'responses' ? this.sdk.responses(upstream) : this.sdk.chat(upstream);
  }

  protected errorContext(): SdkErrorContext {
    return { secrets: this.secrets, refine: refineOpenAIError };
  }

  protected chat(call: AdapterCall, req: NormalizedChatRequest): Promise<GenerationResult> {
    const { settings, warnings } = openAIChatSettings(req);
    return runChat(this.sdk.chat(this.upstreamModel(call.model.id)), settings, {
      abortSignal: call.abortSignal,
      warnings,
      secrets: this.secrets,
      refine: refineOpenAIError,
    });
  }

  protected override image(call: AdapterCall, req: NormalizedImageRequest): Promise<GenerationResult> {
    const { settings, warnings } = openAIImageSettings(req);
    return runImage(this.sdk.image(this.upstreamModel(call.model.id)), settings, {
      abortSignal: call.abortSignal,
      warnings,
      secrets: this.secrets,
      refine: refineOpenAIError,
      inputTokenSplit: openAIImageInputTokens,
    });
  }
}

export function createOpenAIAdapter(connection: ProviderConnection = {}): OpenAIAdapter {
  return new OpenAIAdapter(connection);
}
