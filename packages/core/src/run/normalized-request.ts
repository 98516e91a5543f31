import type { AspectRatio, VideoResolution } from '../model/modality.js';

/** A run request checked against a model's capabilities, with every default resolved. */
export type NormalizedRequest = NormalizedVideoRequest | NormalizedImageRequest | NormalizedChatRequest;

export interface NormalizedVideoRequest {
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

export interface NormalizedImageRequest {
  readonly modality: 'image';
  readonly prompt: string | null;
  readonly aspectRatio: AspectRatio;
  readonly width: number;
  readonly height: number;
  readonly negativePrompt: string | null;
  readonly seed: number | null;
  readonly imageUrls: readonly string[];
}

export interface NormalizedChatRequest {
  readonly modality: 'chat';
  readonly prompt: string;
  readonly temperature: number | null;
  readonly maxTokens: number;
  readonly topP: number | null;
}
