import type { ReplicateProvider } from '@ai-sdk/replicate';
import { ratioValue, type AdapterCall, type GenerationResult, type JsonValue, type NormalizedImageRequest } from '@gengate/core/adapter';
import { runImage } from '../kit/index.js';

/** A FLUX image on Replicate through @ai-sdk/replicate and the kit's runImage: `aspect_ratio`, `seed`, `num_outputs` 1 per call, provider parameters as they are. */
export function generateReplicateImage(sdk: ReplicateProvider, model: string, call: AdapterCall, secrets: readonly string[]): Promise<GenerationResult> {
  const req = call.request as NormalizedImageRequest;
  const options: Record<string, JsonValue> = { pollIntervalMillis: 250 };
  for (const [k, v] of Object.entries(req.providerParams)) if (v !== undefined) options[k] = v;
  return runImage(
    sdk.image(model),
    {
      prompt: req.prompt ?? '',
      n: req.n,
      aspectRatio: aspectRatioOf(req, call) as `${number}:${number}`,
      ...(req.seed === null ? {} : { seed: req.seed }),
      providerOptions: { replicate: options },
    },
    { abortSignal: call.abortSignal, warnings: [], secrets },
  );
}

/** FLUX on Replicate is sized by `aspect_ratio`: the declared ratio closest to the width and height the request resolved to. */
function aspectRatioOf(req: NormalizedImageRequest, call: AdapterCall): string {
  const caps = call.model.capabilities;
  const ratios = caps.modality === 'image' ? caps.aspectRatios : [req.aspectRatio];
  const want = req.width / req.height;
  return ratios.reduce((best, r) => (Math.abs(ratioValue(r) - want) < Math.abs(ratioValue(best) - want) ? r : best), req.aspectRatio);
}
