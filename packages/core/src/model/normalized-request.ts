import type { AspectRatio, VideoResolution } from './modality.js';
import type { JsonObject } from '../util/json.js';

/** A run request checked against a model's parameter schema, with every default resolved. */
export type NormalizedRequest = NormalizedVideoRequest | NormalizedImageRequest | NormalizedChatRequest;

export interface NormalizedCommon {
  /**
   * `provider_params`, validated by the model's own schema with its defaults applied; `{}` when the
   * model declares none.
   */
  readonly providerParams: JsonObject;
}

export interface NormalizedVideoRequest extends NormalizedCommon {
  readonly modality: 'video';
  readonly prompt: string | null;
  readonly aspectRatio: AspectRatio;
  readonly duration: number;
  readonly resolution: VideoResolution;
  readonly imageUrls: readonly string[];
  readonly videoUrls: readonly string[];
  readonly enableTranslation: boolean;
  readonly watermark: string | null;
  readonly multiShots: boolean;
}

export interface NormalizedImageRequest extends NormalizedCommon {
  readonly modality: 'image';
  readonly prompt: string | null;
  readonly aspectRatio: AspectRatio;
  readonly width: number;
  readonly height: number;
  /** Number of images asked for (`image_params.n`, default 1). */
  readonly n: number;
  readonly negativePrompt: string | null;
  readonly seed: number | null;
  readonly imageUrls: readonly string[];
}

export interface NormalizedChatRequest extends NormalizedCommon {
  readonly modality: 'chat';
  readonly prompt: string;
  /** A system instruction (`llm_params.system`), or null. */
  readonly system: string | null;
  readonly temperature: number | null;
  readonly maxTokens: number;
  readonly topP: number | null;
}
