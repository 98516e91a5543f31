import type { JsonObject, JsonValue, NormalizedVideoRequest, TaskWarning } from '@gengate/core/adapter';
import type { FalVideoEndpoints } from './fal-models.js';

/** One queue submission: the model path it goes to and its JSON body (fal's snake_case input schema). */
export interface FalVideoSubmission {
  readonly modelPath: string;
  readonly body: JsonObject;
  readonly warnings: readonly TaskWarning[];
}

/** The app id a queue request is addressed by for status, result and cancel: the path's first two segments. */
export function falAppId(modelPath: string): string {
  return modelPath.split('/').slice(0, 2).join('/');
}

/**
 * Maps a generic video request to a fal model's documented input: `duration` as the schema's enum writes it
 * ("5" for Kling and Hailuo, "8s" for Veo), `aspect_ratio` and `resolution` where the schema has them, the
 * first reference image as `image_url` on the model's image-to-video endpoint (fal takes URLs: the user's URL
 * is passed as it is), and the model's provider parameters as they are (they already use fal's names).
 */
export function falVideoSubmission(endpoints: FalVideoEndpoints, req: NormalizedVideoRequest): FalVideoSubmission {
  const warnings: TaskWarning[] = [];
  const image = req.imageUrls[0] ?? null;
  const body: Record<string, JsonValue> = {
    prompt: req.prompt ?? '',
    duration: endpoints.durationFormat === 'seconds' ? `${req.duration}s` : String(req.duration),
  };
  if (endpoints.sendsAspectRatio) {
    if (image && endpoints.durationFormat === 'plain') {
      // Kling's image-to-video takes the aspect ratio of its image.
      if (req.aspectRatio !== '16:9') warnings.push({ param: 'video_params.aspect_ratio', message: 'With a reference image, the video takes the aspect ratio of the image.' });
    } else {
      body['aspect_ratio'] = req.aspectRatio;
    }
  }
  if (endpoints.sendsResolution) body['resolution'] = req.resolution;
  if (image) body['image_url'] = image;
  for (const [k, v] of Object.entries(req.providerParams)) if (v !== undefined) body[k] = v;
  return { modelPath: image ? endpoints.imageToVideo : endpoints.textToVideo, body, warnings };
}

/** fal's own error types refine the HTTP status (content checker refusals are 422s with this type). */
export function classifyFal(status: number, detail: string): 'content_policy' | 'invalid_input' | undefined {
  if (/content_policy_violation|content checker|flagged by|nsfw/i.test(detail)) return 'content_policy';
  if (status === 422) return 'invalid_input';
  return undefined;
}
