import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { TaskWarning } from '@gengate/core/adapter';

/**
 * What a provider's pure mapping produces for a chat call: the AI SDK's generic settings, the provider's
 * own options, and the warnings for parameters the provider adjusts. Never the SDK's model object.
 */
export interface ChatSettings {
  readonly prompt: string;
  readonly system?: string;
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxOutputTokens: number;
  readonly seed?: number;
  readonly frequencyPenalty?: number;
  readonly presencePenalty?: number;
  readonly stopSequences?: string[];
  readonly providerOptions?: SharedV4ProviderOptions;
}

/** The same for an image call. */
export interface ImageSettings {
  readonly prompt: string;
  readonly n: number;
  readonly size?: `${number}x${number}`;
  readonly aspectRatio?: `${number}:${number}`;
  readonly seed?: number;
  readonly providerOptions?: SharedV4ProviderOptions;
}

export interface Mapped<T> {
  readonly settings: T;
  /** Parameters the provider cannot honour exactly, reported on the task. */
  readonly warnings: readonly TaskWarning[];
}
