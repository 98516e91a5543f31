import '../kit/empty-env-guard.js'; // before any @ai-sdk provider package: see the file
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createGoogle, type GoogleProvider } from '@ai-sdk/google';
import type { AdapterCall, GenerationResult, NormalizedChatRequest, NormalizedImageRequest } from '@gengate/core/adapter';
import { keyAvailability, NO_KEY, type ProviderConnection, type SdkErrorContext, runChat, runImage, SdkAdapter } from '../kit/index.js';
import { googleBlockedReason, googleRetryDelayMs, refineGoogleError } from './google-errors.js';
import { googleChatSettings, googleImageSettings } from './google-mapping.js';
import { GOOGLE_DEFAULT_BASE_URL, GOOGLE_KEY_SETTING, GOOGLE_MODELS, GOOGLE_PROVIDER_ID } from './google-models.js';

/** Google's Gemini API through @ai-sdk/google: chat and Gemini image models, both on generateContent. */
export class GoogleAdapter extends SdkAdapter {
  private readonly sdk: GoogleProvider;
  private readonly secrets: readonly string[];

  constructor(connection: ProviderConnection = {}) {
    super(GOOGLE_PROVIDER_ID, GOOGLE_MODELS, keyAvailability(GOOGLE_PROVIDER_ID, connection.apiKey, connection.keySetting ?? GOOGLE_KEY_SETTING));
    this.secrets = connection.apiKey ? [connection.apiKey] : [];
    this.sdk = createGoogle({
      apiKey: connection.apiKey || NO_KEY,
      baseURL: connection.baseURL || GOOGLE_DEFAULT_BASE_URL,
      ...(connection.fetch ? { fetch: connection.fetch } : {}),
    });
  }

  protected errorContext(): SdkErrorContext {
    return { secrets: this.secrets, refine: refineGoogleError, retryAfterFromBody: googleRetryDelayMs };
  }

  private context(call: AdapterCall) {
    return { abortSignal: call.abortSignal, ...this.errorContext() };
  }

  protected chatLanguageModel(upstream: string): LanguageModelV4 {
    return this.sdk.languageModel(upstream);
  }

  protected chat(call: AdapterCall, req: NormalizedChatRequest): Promise<GenerationResult> {
    const { settings, warnings } = googleChatSettings(req);
    return runChat(this.sdk.languageModel(this.upstreamModel(call.model.id)), settings, { ...this.context(call), warnings });
  }

  protected override image(call: AdapterCall, req: NormalizedImageRequest): Promise<GenerationResult> {
    const { settings, warnings } = googleImageSettings(req);
    return runImage(this.sdk.image(this.upstreamModel(call.model.id)), settings, { ...this.context(call), warnings, blockedReason: googleBlockedReason });
  }
}

export function createGoogleAdapter(connection: ProviderConnection = {}): GoogleAdapter {
  return new GoogleAdapter(connection);
}
