import type { ReplicateProvider } from '@ai-sdk/replicate';
import { ratioValue, type AdapterCall, type GenerationResult, type JsonValue, type NormalizedImageRequest } from '@gengate/core';
import { generateImage } from 'ai';
import { taskWarningsFromSdk, upstreamErrorFromAiSdk } from '../video-common/index.js';

/** A FLUX image on Replicate through @ai-sdk/replicate: `aspect_ratio`, `seed`, `num_outputs` 1 per call, provider parameters as they are. */
export async function generateReplicateImage(sdk: ReplicateProvider, model: string, call: AdapterCall, secrets: readonly string[]): Promise<GenerationResult> {
  const req = call.request as NormalizedImageRequest;
  const options: Record<string, JsonValue> = { pollIntervalMillis: 250 };
  for (const [k, v] of Object.entries(req.providerParams)) if (v !== undefined) options[k] = v;
  try {
    const result = await generateImage({
      model: sdk.image(model),
      prompt: req.prompt ?? '',
      n: req.n,
      aspectRatio: aspectRatioOf(req, call) as `${number}:${number}`,
      ...(req.seed === null ? {} : { seed: req.seed }),
      providerOptions: { replicate: options },
      maxRetries: 0,
      abortSignal: call.abortSignal,
    });
    return {
      files: result.images.map((img) => ({ kind: 'bytes' as const, data: img.uint8Array, mediaType: img.mediaType })),
      usage: { images: result.images.length },
      warnings: taskWarningsFromSdk('image_params', result.warnings),
    };
  } catch (err) {
    throw upstreamErrorFromAiSdk(err, call.abortSignal, undefined, secrets);
  }
}

/** FLUX on Replicate is sized by `aspect_ratio`: the declared ratio closest to the width and height the request resolved to. */
function aspectRatioOf(req: NormalizedImageRequest, call: AdapterCall): string {
  const caps = call.model.capabilities;
  const ratios = caps.modality === 'image' ? caps.aspectRatios : [req.aspectRatio];
  const want = req.width / req.height;
  return ratios.reduce((best, r) => (Math.abs(ratioValue(r) - want) < Math.abs(ratioValue(best) - want) ? r : best), req.aspectRatio);
}
