import type { AspectRatio, VideoResolution } from './modality.js';

/** What a video model accepts. The host validates a request against it before any credit is held. */
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

export interface ImageCapabilities {
  readonly modality: 'image';
  readonly promptRequired: boolean;
  /** 1:1 is the default when listed, else the first one. */
  readonly aspectRatios: readonly AspectRatio[];
  /** Inclusive bounds for explicit width/height in pixels. */
  readonly minSide: number;
  readonly maxSide: number;
  /** Size used for the long side when width/height are not given. */
  readonly defaultLongSide: number;
  readonly supportsNegativePrompt: boolean;
  readonly supportsSeed: boolean;
  readonly maxReferenceImages: number;
}

export interface ChatCapabilities {
  readonly modality: 'chat';
  readonly promptRequired: true;
  /** Upper bound of llm_params.max_tokens; also the default used for the quote. */
  readonly maxOutputTokens: number;
  readonly defaultMaxTokens: number;
  readonly supportsTopP: boolean;
}

export type ModelCapabilities = VideoCapabilities | ImageCapabilities | ChatCapabilities;
