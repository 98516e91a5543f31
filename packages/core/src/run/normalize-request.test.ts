import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChatCapabilities, ImageCapabilities, VideoCapabilities } from '../model/capabilities.js';
import { modelParametersJsonSchema } from './model-request-schema.js';
import type { ModelDescriptor } from '../model/model.js';
import { normalizeRunRequest, sizeForAspectRatio } from './normalize-request.js';
import { runRequestSchema } from '../model/run-request.schema.js';

const video: ModelDescriptor = {
  id: 'test.video',
  name: 'Video',
  provider: 'test',
  modality: 'video',
  description: '',
  tags: [],
  isPopular: false,
  isActive: true,
  capabilities: {
    modality: 'video',
    promptRequired: true,
    durations: [5],
    resolutions: ['720p'],
    aspectRatios: ['16:9', '9:16'],
    maxReferenceImages: 1,
    maxReferenceVideos: 0,
    supportsWatermark: false,
    supportsMultiShots: false,
    supportsTranslation: true,
  },
  pricing: { kind: 'per_second', perSecond: { '720p': 1_000_000, '1080p': 2_000_000 } },
};
const chat: ModelDescriptor = {
  ...video,
  id: 'test.chat',
  modality: 'chat',
  capabilities: {
    modality: 'chat',
    promptRequired: true,
    maxOutputTokens: 4096,
    defaultMaxTokens: 1024,
    temperature: { min: 0, max: 2 },
    supportsTopP: true,
    supportsSystem: true,
  },
  pricing: { kind: 'per_token', inputPerMillionTokens: 1, outputPerMillionTokens: 1 },
};
const image: ModelDescriptor = {
  ...video,
  id: 'test.image',
  modality: 'image',
  capabilities: {
    modality: 'image',
    promptRequired: true,
    aspectRatios: ['1:1', '16:9'],
    sizes: { kind: 'range', minSide: 64, maxSide: 2048, defaultLongSide: 1024 },
    supportsNegativePrompt: true,
    supportsSeed: true,
    maxReferenceImages: 0,
  },
  pricing: { kind: 'per_image', perImage: 1 },
};

function parse(body: unknown) {
  return runRequestSchema.parse(body);
}

function refusal(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a GatewayError');
}

describe('run request schema', () => {
  it.each([
    [{ llm_params: { temperature: 2.5 } }, 'llm_params.temperature'],
    [{ llm_params: { temperature: -0.1 } }, 'llm_params.temperature'],
    [{ llm_params: { top_p: 1.01 } }, 'llm_params.top_p'],
    [{ video_params: { aspect_ratio: 'wide' } }, 'video_params.aspect_ratio'],
    [{ video_params: { aspect_ratio: '0:9' } }, 'video_params.aspect_ratio'],
    [{ video_params: { resolution: 'huge' } }, 'video_params.resolution'],
    [{ image_params: { n: 0 } }, 'image_params.n'],
    [{ provider_params: ['x'] }, 'provider_params'],
    [{ callback_url: 'ftp://x.example/cb' }, 'callback_url'],
    [{ prompt: 5 }, 'prompt'],
  ])('refuses %j at %s', (body, param) => {
    const r = runRequestSchema.safeParse(body);
    expect(r.success).toBe(false);
    if (!r.success) expect(GatewayError.fromZod(r.error).param).toBe(param);
  });

  it('refuses unknown fields by name', () => {
    const r = runRequestSchema.safeParse({ prompt: 'x', colour: 'red' });
    expect(r.success).toBe(false);
    if (!r.success) expect(GatewayError.fromZod(r.error).message).toContain('colour');
  });

  it('keeps values open: any W:H ratio and any resolution token are left to the model to accept', () => {
    expect(runRequestSchema.safeParse({ video_params: { aspect_ratio: '21:9', resolution: '4k' } }).success).toBe(true);
    expect(runRequestSchema.safeParse({ image_params: { aspect_ratio: '3:2' }, provider_params: { quality: 'high', safety: { level: 2 } } }).success).toBe(true);
  });

  it('accepts the boundaries 0 and 2, 0 and 1', () => {
    expect(runRequestSchema.safeParse({ llm_params: { temperature: 0, top_p: 0 } }).success).toBe(true);
    expect(runRequestSchema.safeParse({ llm_params: { temperature: 2, top_p: 1 } }).success).toBe(true);
  });
});

describe('normalizeRunRequest', () => {
  it('resolves video defaults (16:9, first duration and resolution, flags false)', () => {
    const n = normalizeRunRequest(video, parse({ prompt: 'a cat' }));
    expect(n).toMatchObject({ modality: 'video', aspectRatio: '16:9', duration: 5, resolution: '720p', multiShots: false, enableTranslation: false });
  });

  it('refuses a duration, resolution or ratio the model does not support, naming the param', () => {
    expect(refusal(() => normalizeRunRequest(video, parse({ prompt: 'x', video_params: { duration: 10 } }))).param).toBe('video_params.duration');
    expect(refusal(() => normalizeRunRequest(video, parse({ prompt: 'x', video_params: { resolution: '1080p' } }))).param).toBe(
      'video_params.resolution',
    );
    expect(refusal(() => normalizeRunRequest(video, parse({ prompt: 'x', video_params: { aspect_ratio: '1:1' } }))).param).toBe(
      'video_params.aspect_ratio',
    );
  });

  it('refuses unsupported features instead of dropping them', () => {
    expect(refusal(() => normalizeRunRequest(video, parse({ prompt: 'x', video_params: { watermark: 'w' } }))).type).toBe('unsupported_parameter');
    expect(refusal(() => normalizeRunRequest(video, parse({ prompt: 'x', video_params: { video_urls: ['https://a.example/v.mp4'] } }))).param).toBe(
      'video_params.video_urls',
    );
  });

  it('requires a prompt unless reference inputs are given', () => {
    expect(refusal(() => normalizeRunRequest(video, parse({}))).param).toBe('prompt');
    expect(normalizeRunRequest(video, parse({ video_params: { image_urls: ['https://a.example/i.png'] } })).modality).toBe('video');
    expect(refusal(() => normalizeRunRequest(chat, parse({ prompt: '   ' }))).param).toBe('prompt');
  });

  it('refuses params of another modality and a mismatched generation_type', () => {
    expect(refusal(() => normalizeRunRequest(chat, parse({ prompt: 'x', image_params: { seed: 1 } }))).param).toBe('image_params');
    const mismatch = refusal(() => normalizeRunRequest(chat, parse({ prompt: 'x', generation_type: 'video' })));
    expect(mismatch).toMatchObject({ param: 'generation_type', type: 'invalid_request' });
  });

  it('accepts open values a model declares (21:9, 4k) and refuses them on models that do not', () => {
    const wide: ModelDescriptor = {
      ...video,
      id: 'test.wide',
      capabilities: { ...(video.capabilities as VideoCapabilities), aspectRatios: ['21:9'], resolutions: ['4k'] },
      pricing: { kind: 'per_second', perSecond: { '4k': 1 } },
    };
    expect(normalizeRunRequest(wide, parse({ prompt: 'x' }))).toMatchObject({ aspectRatio: '21:9', resolution: '4k' });
    const refused = refusal(() => normalizeRunRequest(video, parse({ prompt: 'x', video_params: { aspect_ratio: '21:9' } })));
    expect(refused).toMatchObject({ type: 'unsupported_parameter', param: 'video_params.aspect_ratio' });
    expect(refused.message).toContain('16:9, 9:16');
  });

  it('validates provider_params strictly against the model schema, with its defaults, before anything else', () => {
    const withParams: ModelDescriptor = {
      ...image,
      id: 'test.params',
      providerParams: z.strictObject({ quality: z.enum(['low', 'high']).default('low'), background: z.enum(['opaque', 'transparent']).optional() }),
    };
    expect(normalizeRunRequest(withParams, parse({ prompt: 'x' })).providerParams).toEqual({ quality: 'low' });
    expect(normalizeRunRequest(withParams, parse({ prompt: 'x', provider_params: { quality: 'high' } })).providerParams).toEqual({ quality: 'high' });
    expect(refusal(() => normalizeRunRequest(withParams, parse({ prompt: 'x', provider_params: { qualty: 'high' } })))).toMatchObject({
      type: 'unsupported_parameter',
      param: 'provider_params.qualty',
    });
    expect(refusal(() => normalizeRunRequest(withParams, parse({ prompt: 'x', provider_params: { quality: 'ultra' } })))).toMatchObject({
      type: 'invalid_request',
      param: 'provider_params.quality',
    });
    expect(refusal(() => normalizeRunRequest(image, parse({ prompt: 'x', provider_params: { quality: 'high' } }))).message).toContain('takes no provider_params');
    const schema = modelParametersJsonSchema(withParams) as { properties: Record<string, { properties?: Record<string, unknown> }> };
    expect(schema.properties['provider_params']?.properties?.['quality']).toMatchObject({ enum: ['low', 'high'], default: 'low' });
    expect(Object.keys(schema.properties)).toEqual(['prompt', 'generation_type', 'callback_url', 'provider_params', 'provider', 'models', 'image_params']);
  });

  it('picks fixed sizes by aspect ratio or explicit sides, and refuses sizes the model does not make', () => {
    const fixed: ModelDescriptor = {
      ...image,
      id: 'test.fixed',
      capabilities: {
        ...(image.capabilities as ImageCapabilities),
        aspectRatios: ['1:1', '3:2', '2:3'],
        sizes: { kind: 'fixed', options: [{ width: 1024, height: 1024 }, { width: 1536, height: 1024 }, { width: 1024, height: 1536 }] },
        maxImages: 4,
      },
    };
    expect(normalizeRunRequest(fixed, parse({ prompt: 'x' }))).toMatchObject({ width: 1024, height: 1024, aspectRatio: '1:1', n: 1 });
    expect(normalizeRunRequest(fixed, parse({ prompt: 'x', image_params: { aspect_ratio: '3:2', n: 3 } }))).toMatchObject({ width: 1536, height: 1024, n: 3 });
    expect(normalizeRunRequest(fixed, parse({ prompt: 'x', image_params: { width: 1024, height: 1536 } }))).toMatchObject({ aspectRatio: '2:3' });
    expect(refusal(() => normalizeRunRequest(fixed, parse({ prompt: 'x', image_params: { width: 1536, height: 1536 } }))).message).toContain('1024x1024, 1536x1024');
    expect(refusal(() => normalizeRunRequest(fixed, parse({ prompt: 'x', image_params: { width: 800 } }))).param).toBe('image_params.width');
    expect(refusal(() => normalizeRunRequest(fixed, parse({ prompt: 'x', image_params: { n: 5 } })))).toMatchObject({ param: 'image_params.n' });
  });

  it('enforces a model’s own temperature range and refuses temperature with top_p where the upstream does', () => {
    const claude: ModelDescriptor = {
      ...chat,
      id: 'test.claude',
      capabilities: { ...(chat.capabilities as ChatCapabilities), temperature: { min: 0, max: 1 }, exclusiveTemperatureTopP: true },
    };
    expect(refusal(() => normalizeRunRequest(claude, parse({ prompt: 'x', llm_params: { temperature: 1.5 } }))).message).toContain('between 0 and 1');
    expect(refusal(() => normalizeRunRequest(claude, parse({ prompt: 'x', llm_params: { temperature: 0.5, top_p: 0.9 } }))).param).toBe('llm_params.top_p');
    expect(normalizeRunRequest(claude, parse({ prompt: 'x', llm_params: { top_p: 0.9, system: 'Be brief.' } }))).toMatchObject({ topP: 0.9, system: 'Be brief.' });
    const noTemp: ModelDescriptor = { ...chat, id: 'test.reasoning', capabilities: { ...(chat.capabilities as ChatCapabilities), temperature: null } };
    expect(refusal(() => normalizeRunRequest(noTemp, parse({ prompt: 'x', llm_params: { temperature: 0.5 } })))).toMatchObject({
      type: 'unsupported_parameter',
      param: 'llm_params.temperature',
    });
  });

  it('sizes images from the aspect ratio or from one explicit side', () => {
    expect(normalizeRunRequest(image, parse({ prompt: 'x' }))).toMatchObject({ width: 1024, height: 1024 });
    expect(normalizeRunRequest(image, parse({ prompt: 'x', image_params: { aspect_ratio: '16:9' } }))).toMatchObject({ width: 1024, height: 576 });
    expect(normalizeRunRequest(image, parse({ prompt: 'x', image_params: { aspect_ratio: '16:9', width: 320 } }))).toMatchObject({ width: 320, height: 180 });
    expect(refusal(() => normalizeRunRequest(image, parse({ prompt: 'x', image_params: { width: 4000, height: 10 } }))).param).toBe('image_params.width');
  });

  it('applies the chat max_tokens default and cap', () => {
    expect(normalizeRunRequest(chat, parse({ prompt: 'hi' }))).toMatchObject({ maxTokens: 1024, temperature: null });
    expect(refusal(() => normalizeRunRequest(chat, parse({ prompt: 'hi', llm_params: { max_tokens: 5000 } }))).param).toBe('llm_params.max_tokens');
  });

  it('sizeForAspectRatio keeps the ratio with even sides', () => {
    expect(sizeForAspectRatio('9:16', 320)).toEqual({ width: 180, height: 320 });
    expect(sizeForAspectRatio('4:3', 240)).toEqual({ width: 240, height: 180 });
  });
});
