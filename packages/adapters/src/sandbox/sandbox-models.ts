import type { AspectRatio, ModelDescriptor } from '@gengate/core/adapter';

const ALL_RATIOS: readonly AspectRatio[] = ['16:9', '9:16', '1:1', '4:3', '3:4'];
const common = { provider: 'sandbox', isActive: true } as const;

/**
 * Offline models: real files, no credentials. Prices are data in micro-USD, as for a real upstream
 * (the markup applies on top; with none, 1 USD = 100 credits).
 */
export const SANDBOX_MODELS = {
  chat: {
    ...common,
    id: 'sandbox.echo-chat',
    name: 'Sandbox Echo Chat',
    modality: 'chat',
    description: 'Offline chat model: answers deterministically from the prompt and reports token usage.',
    tags: ['sandbox', 'offline', 'chat', 'text'],
    isPopular: true,
    capabilities: {
      modality: 'chat',
      promptRequired: true,
      maxOutputTokens: 4_096,
      defaultMaxTokens: 256,
      temperature: { min: 0, max: 2 },
      supportsTopP: true,
      supportsSystem: true,
      contextWindow: 32_000,
    },
    pricing: { kind: 'per_token', inputPerMillionTokens: 100_000, outputPerMillionTokens: 300_000 },
    pollIntervalSeconds: 1,
  },
  image: {
    ...common,
    id: 'sandbox.pixel-image',
    name: 'Sandbox Pixel Image',
    modality: 'image',
    description: 'Offline image model: renders a PNG that honours width, height, aspect ratio and seed.',
    tags: ['sandbox', 'offline', 'image', 'text-to-image'],
    isPopular: true,
    capabilities: {
      modality: 'image',
      promptRequired: true,
      aspectRatios: ALL_RATIOS,
      sizes: { kind: 'range', minSide: 16, maxSide: 2_048, defaultLongSide: 512 },
      supportsNegativePrompt: true,
      supportsSeed: true,
      maxReferenceImages: 4,
      maxImages: 4,
    },
    pricing: { kind: 'per_image', perImage: 20_000, perLargeImage: 40_000 },
    pollIntervalSeconds: 3,
  },
  video: {
    ...common,
    id: 'sandbox.motion-video',
    name: 'Sandbox Motion Video',
    modality: 'video',
    description: 'Offline video model: renders an animated GIF preview of the requested duration and aspect ratio (long-running job).',
    tags: ['sandbox', 'offline', 'video', 'text-to-video', 'image-to-video'],
    isPopular: true,
    capabilities: {
      modality: 'video',
      promptRequired: true,
      durations: [5, 10],
      resolutions: ['720p', '1080p'],
      aspectRatios: ALL_RATIOS,
      maxReferenceImages: 1,
      maxReferenceVideos: 1,
      supportsWatermark: true,
      supportsMultiShots: true,
      supportsTranslation: true,
    },
    pricing: { kind: 'per_second', perSecond: { '720p': 50_000, '1080p': 80_000 } },
    pollIntervalSeconds: 3,
  },
  fail: {
    ...common,
    id: 'sandbox.always-fail',
    name: 'Sandbox Always Fail',
    modality: 'image',
    description: 'Offline model that always fails after its latency: test your failure handling. No credits are charged.',
    tags: ['sandbox', 'offline', 'testing', 'failure'],
    isPopular: false,
    capabilities: {
      modality: 'image',
      promptRequired: false,
      aspectRatios: ALL_RATIOS,
      sizes: { kind: 'range', minSide: 16, maxSide: 2_048, defaultLongSide: 256 },
      supportsNegativePrompt: true,
      supportsSeed: true,
      maxReferenceImages: 0,
    },
    pricing: { kind: 'per_image', perImage: 10_000 },
    pollIntervalSeconds: 3,
  },
} as const satisfies Record<string, ModelDescriptor>;

/** A prompt containing this marker makes any sandbox model fail deterministically. */
export const SANDBOX_FAIL_MARKER = '[sandbox:fail]';

/** A streamed chat whose prompt contains this marker breaks after three pieces (an upstream dropping mid-stream). */
export const SANDBOX_DROP_MARKER = '[sandbox:drop]';
