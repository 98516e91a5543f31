import type { FalProvider } from '@ai-sdk/fal';
import type { AdapterCall, GenerationResult, JsonValue, NormalizedImageRequest } from '@gengate/core/adapter';
import { runImage } from '../kit/index.js';
import { classifyFal } from './fal-mapping.js';

const CAMEL: Readonly<Record<string, string>> = {
  guidance_scale: 'guidanceScale',
  num_inference_steps: 'numInferenceSteps',
  enable_safety_checker: 'enableSafetyChecker',
  output_format: 'outputFormat',
};

/** A FLUX image on fal.run through @ai-sdk/fal and the kit's runImage: size as `image_size {width, height}`, `num_images` 1 per call, seed, provider parameters. */
export function generateFalImage(fal: FalProvider, modelPath: string, call: AdapterCall, secrets: readonly string[]): Promise<GenerationResult> {
  const req = call.request as NormalizedImageRequest;
  const falOptions: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(req.providerParams)) if (v !== undefined) falOptions[CAMEL[k] ?? k] = v;
  return runImage(
    fal.image(modelPath),
    { prompt: req.prompt ?? '', n: req.n, size: `${req.width}x${req.height}`, ...(req.seed === null ? {} : { seed: req.seed }), providerOptions: { fal: falOptions } },
    { abortSignal: call.abortSignal, warnings: [], secrets, refine: classifyFal },
  );
}
