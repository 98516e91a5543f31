import { modelParametersJsonSchema, type JsonValue, type ModelDescriptor, type RunRequest } from '@gengate/core/adapter';

/** The smallest request a model accepts: a prompt, and its cheapest duration for video. */
export function minimalRequest(model: ModelDescriptor): RunRequest {
  const c = model.capabilities;
  const prompt = 'gengate conformance test: a small red square';
  if (c.modality === 'video') return { prompt, video_params: { duration: Math.min(...c.durations) } };
  return { prompt };
}

/** A generic parameter set to a value other than its default, and the request path that names it. */
export interface ParameterProbe {
  readonly param: string;
  readonly request: RunRequest;
}

const other = <T>(values: readonly T[]): T | undefined => values[1];

/**
 * For every generic parameter the model's capabilities accept, a request that sets it to a non-default
 * value. A parameter the model refuses is not probed (refusing before any hold is one of the three
 * allowed answers); an accepted one must change the upstream request or come back as a warning.
 */
export function parameterProbes(model: ModelDescriptor, base: RunRequest): ParameterProbe[] {
  const c = model.capabilities;
  const probes: ParameterProbe[] = [];
  const add = (group: 'video_params' | 'image_params' | 'llm_params', name: string, value: unknown) => {
    if (value === undefined) return;
    const params = { ...(base[group] as Record<string, unknown> | undefined), [name]: value };
    probes.push({ param: `${group}.${name}`, request: { ...base, [group]: params } as RunRequest });
  };
  if (c.modality === 'chat') {
    if (c.temperature) add('llm_params', 'temperature', Math.round(((c.temperature.min + c.temperature.max) / 3) * 10) / 10 || 0.1);
    if (c.supportsTopP) add('llm_params', 'top_p', 0.5);
    add('llm_params', 'max_tokens', Math.min(17, c.maxOutputTokens));
    if (c.supportsSystem) add('llm_params', 'system', 'Answer in one word.');
  } else if (c.modality === 'image') {
    add('image_params', 'aspect_ratio', other(c.aspectRatios));
    if (c.sizes.kind === 'fixed') {
      const o = c.sizes.options[1];
      if (o) {
        probes.push({ param: 'image_params.width', request: { ...base, image_params: { ...base.image_params, width: o.width, height: o.height } } });
      }
    } else {
      const m = c.sizes.multipleOf ?? 8;
      const side = Math.max(c.sizes.minSide, Math.min(c.sizes.maxSide, Math.round(c.sizes.defaultLongSide / 2 / m) * m));
      if (side !== c.sizes.defaultLongSide) add('image_params', 'width', side);
    }
    if (c.supportsNegativePrompt) add('image_params', 'negative_prompt', 'blurry, low quality');
    if (c.supportsSeed) add('image_params', 'seed', 424242);
    if (c.maxReferenceImages > 0) add('image_params', 'image_urls', ['https://example.com/reference.png']);
    if ((c.maxImages ?? 1) >= 2) add('image_params', 'n', 2);
  } else {
    add('video_params', 'aspect_ratio', other(c.aspectRatios));
    add('video_params', 'duration', c.durations.find((d) => d !== base.video_params?.duration));
    add('video_params', 'resolution', other(c.resolutions));
    if (c.maxReferenceImages > 0) add('video_params', 'image_urls', ['https://example.com/first-frame.png']);
    if (c.maxReferenceVideos > 0) add('video_params', 'video_urls', ['https://example.com/reference.mp4']);
    if (c.supportsTranslation) add('video_params', 'enable_translation', true);
    if (c.supportsWatermark) add('video_params', 'watermark', 'gengate');
    if (c.supportsMultiShots) add('video_params', 'multi_shots', true);
  }
  return probes;
}

interface PropertySchema {
  readonly type?: string;
  readonly enum?: readonly JsonValue[];
  readonly default?: JsonValue;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** A value of a declared provider parameter other than its default, or undefined when the kit cannot pick one. */
function otherValue(p: PropertySchema): JsonValue | undefined {
  if (p.enum) return p.enum.find((v) => v !== p.default);
  if (p.type === 'boolean') return p.default !== true;
  if (p.type === 'integer' || p.type === 'number') {
    const candidates = [p.maximum, p.minimum, 1, 0].filter((v): v is number => typeof v === 'number');
    return candidates.find((v) => v !== p.default && (p.minimum === undefined || v >= p.minimum) && (p.maximum === undefined || v <= p.maximum));
  }
  if (p.type === 'string') return 'gengate-conformance';
  return undefined;
}

/**
 * For every provider parameter the model declares (its `providerParams` schema), a request that sets it to a
 * non-default value: like the generic ones, it must reach the upstream request or come back as a warning.
 */
export function providerParamProbes(model: ModelDescriptor, base: RunRequest): ParameterProbe[] {
  const root = modelParametersJsonSchema(model) as { properties?: { provider_params?: { properties?: Record<string, PropertySchema> } } };
  const probes: ParameterProbe[] = [];
  for (const [name, schema] of Object.entries(root.properties?.provider_params?.properties ?? {})) {
    const value = otherValue(schema);
    if (value === undefined) continue;
    probes.push({ param: `provider_params.${name}`, request: { ...base, provider_params: { ...base.provider_params, [name]: value } } });
  }
  return probes;
}
