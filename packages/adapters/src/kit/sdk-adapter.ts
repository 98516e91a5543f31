import {
  ADAPTER_SPECIFICATION_VERSION,
  isUpstreamError,
  upstreamErrorFromNetwork,
  UpstreamError,
  type AdapterAvailability,
  type AdapterCall,
  type GenerationResult,
  type LanguageModelPreference,
  type ModelDescriptor,
  type NormalizedChatRequest,
  type NormalizedImageRequest,
  type ProviderAdapter,
  type ProviderParamsSchema,
} from '@gengate/core/adapter';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { z } from 'zod';
import { toUpstreamError, type SdkErrorContext } from './sdk-error.js';

/** A model of an SDK-based adapter: its catalog entry and the upstream's own name for it. */
export interface SdkModelEntry {
  readonly descriptor: ModelDescriptor;
  /** The model id the upstream API takes (`gpt-4.1`, `claude-sonnet-5-5`, ...). */
  readonly upstream: string;
}

/**
 * A typed `z.strictObject` as a model's `provider_params` schema (unknown keys are refused before any
 * hold). The mapping parses `request.providerParams` with the same typed schema to read the values.
 */
export function asProviderParams(schema: z.ZodObject): ProviderParamsSchema {
  return schema as unknown as ProviderParamsSchema;
}

/**
 * The shape every AI-SDK-based adapter shares: one-shot calls, availability from configuration, a model
 * lookup, and dispatch by modality. Subclasses map and call; they never return the SDK's types.
 */
export abstract class SdkAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly models: readonly ModelDescriptor[];
  private readonly upstreamById: ReadonlyMap<string, string>;

  protected constructor(
    readonly providerId: string,
    entries: readonly SdkModelEntry[],
    readonly availability: AdapterAvailability,
  ) {
    this.models = entries.map((e) => e.descriptor);
    this.upstreamById = new Map(entries.map((e) => [e.descriptor.id, e.upstream]));
  }

  isLongRunning(): boolean {
    return false;
  }

  /** The upstream model name of a catalog id. */
  protected upstreamModel(modelId: string): string {
    const name = this.upstreamById.get(modelId);
    if (name === undefined) throw new Error(`${this.providerId} has no model ${modelId}`);
    return name;
  }

  async generate(call: AdapterCall): Promise<GenerationResult> {
    if (!this.availability.available) throw new UpstreamError(this.availability.reason, { kind: 'authentication' });
    call.abortSignal.throwIfAborted();
    const req = call.request;
    switch (req.modality) {
      case 'chat':
        return this.chat(call, req);
      case 'image':
        return this.image(call, req);
      case 'video':
        throw new Error(`${this.providerId} offers no video models`);
    }
  }

  protected abstract chat(call: AdapterCall, req: NormalizedChatRequest): Promise<GenerationResult>;

  /** The SDK's language model of an upstream chat model name (streamed by the host's dialect edges). */
  protected abstract chatLanguageModel(upstream: string, preference?: LanguageModelPreference): LanguageModelV4;

  /** How this provider's errors are classified and redacted. */
  protected abstract errorContext(): SdkErrorContext;

  /** v3: the AI SDK language model of a chat model of this adapter. */
  languageModel(modelId: string, preference?: LanguageModelPreference): LanguageModelV4 {
    const model = this.models.find((m) => m.id === modelId);
    if (model?.modality !== 'chat') throw new Error(`${this.providerId} has no chat model ${modelId}`);
    return this.chatLanguageModel(this.upstreamModel(modelId), preference);
  }

  /** v3: classifies what the language model threw or streamed as an error part. */
  upstreamError(error: unknown): UpstreamError {
    if (!this.availability.available) return new UpstreamError(this.availability.reason, { kind: 'authentication' });
    const classified = toUpstreamError(error, this.errorContext());
    // An abort or a broken connection mid-stream: the stream could not be read to its end.
    return isUpstreamError(classified) ? classified : upstreamErrorFromNetwork(classified);
  }

  protected image(call: AdapterCall, _req: NormalizedImageRequest): Promise<GenerationResult> {
    return Promise.reject(new Error(`${this.providerId} offers no image model ${call.model.id}`));
  }
}
