import type { AspectRatio, VideoResolution } from './modality.js';

/**
 * What a model accepts, as data. The host derives the model's parameter schema from it (see
 * run/model-request-schema.ts) and validates every request against it BEFORE any credit is held.
 * Values are open (any aspect ratio, resolution or duration a provider offers); nothing here is a
 * closed list in core.
 */
export interface VideoCapabilities {
  readonly modality: 'video';
  readonly promptRequired: boolean;
  /** Accepted durations in seconds; the first one is the default. */
  readonly durations: readonly number[];
  /** Accepted resolutions; the first one is the default. */
  readonly resolutions: readonly VideoResolution[];
  /** Accepted aspect ratios; 16:9 is the default when listed, else the first one. */
  readonly aspectRatios: readonly AspectRatio[];
  /** Maximum number of reference images (image-to-video); 0 = not supported. */
  readonly maxReferenceImages: number;
  /** Maximum number of reference videos (video-to-video); 0 = not supported. */
  readonly maxReferenceVideos: number;
  readonly supportsWatermark: boolean;
  readonly supportsMultiShots: boolean;
  readonly supportsTranslation: boolean;
}

/** Output sizes of an image model: any size within bounds, or a fixed list (the first is the default). */
export type ImageSizes =
  | {
      readonly kind: 'range';
      /** Inclusive bounds for explicit width/height in pixels. */
      readonly minSide: number;
      readonly maxSide: number;
      /** Size used for the long side when width/height are not given. */
      readonly defaultLongSide: number;
      /** Both sides must be multiples of this (e.g. 8 or 16 for diffusion models); default 1. */
      readonly multipleOf?: number;
    }
  | { readonly kind: 'fixed'; readonly options: readonly { readonly width: number; readonly height: number }[] };

export interface ImageCapabilities {
  readonly modality: 'image';
  readonly promptRequired: boolean;
  /** 1:1 is the default when listed, else the first one. With fixed sizes, each ratio must have a size. */
  readonly aspectRatios: readonly AspectRatio[];
  readonly sizes: ImageSizes;
  readonly supportsNegativePrompt: boolean;
  readonly supportsSeed: boolean;
  readonly maxReferenceImages: number;
  /** Most images one request may ask for (`image_params.n`); 1 when absent. */
  readonly maxImages?: number;
}

export interface ChatCapabilities {
  readonly modality: 'chat';
  readonly promptRequired: true;
  /** Upper bound of llm_params.max_tokens. */
  readonly maxOutputTokens: number;
  /** max_tokens used when the request gives none; also the basis of the quote. */
  readonly defaultMaxTokens: number;
  /** Accepted temperature range (the interface allows 0..2); null = the model takes no temperature. */
  readonly temperature: { readonly min: number; readonly max: number } | null;
  readonly supportsTopP: boolean;
  /** True when the upstream refuses temperature and top_p in the same request. */
  readonly exclusiveTemperatureTopP?: boolean;
  /** Whether `llm_params.system` (a system instruction) is accepted. */
  readonly supportsSystem: boolean;
  /** Context window in tokens (informational). */
  readonly contextWindow?: number;
}

export type ModelCapabilities = VideoCapabilities | ImageCapabilities | ChatCapabilities;
