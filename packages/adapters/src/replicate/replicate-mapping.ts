import { UpstreamError, type JsonObject, type JsonValue, type NormalizedVideoRequest, type TaskWarning } from '@gengate/core/adapter';

export interface ReplicateVideoInput {
  readonly input: JsonObject;
  readonly warnings: readonly TaskWarning[];
}

/**
 * Maps a generic video request to the model's documented Replicate input schema. Replicate takes file
 * inputs as URLs, so reference images are passed on as they are. Combinations the schema refuses are
 * refused here, before anything is submitted.
 */
export function replicateVideoInput(model: string, req: NormalizedVideoRequest): ReplicateVideoInput {
  const warnings: TaskWarning[] = [];
  const input: Record<string, JsonValue> = { prompt: req.prompt ?? '', duration: req.duration };
  const image = req.imageUrls[0] ?? null;
  if (model === 'kwaivgi/kling-v2.1') {
    // "You must use a start image with kling-v2.1"; standard is 720p, pro is 1080p.
    if (!image) throw new UpstreamError('Kling 2.1 on Replicate needs a first frame: give one in video_params.image_urls.', { kind: 'invalid_input' });
    input['start_image'] = image;
    input['mode'] = req.resolution === '1080p' ? 'pro' : 'standard';
    warnings.push({ param: 'video_params.aspect_ratio', message: 'Kling 2.1 takes the aspect ratio of its first frame.' });
  } else if (model === 'kwaivgi/kling-v2.1-master') {
    // Input schema: prompt, duration 5|10, aspect_ratio 16:9|9:16|1:1, start_image (optional), negative_prompt.
    if (image) {
      input['start_image'] = image;
      warnings.push({ param: 'video_params.aspect_ratio', message: 'With a first frame, Kling 2.1 Master takes the aspect ratio of the image.' });
    } else {
      input['aspect_ratio'] = req.aspectRatio;
    }
  } else if (model === 'minimax/hailuo-02') {
    if (req.resolution === '1080p' && req.duration !== 6) {
      throw new UpstreamError('Hailuo 02 renders 1080p only for 6-second videos: choose duration 6 or resolution 768p.', { kind: 'invalid_input' });
    }
    input['resolution'] = req.resolution;
    if (image) {
      input['first_frame_image'] = image;
      warnings.push({ param: 'video_params.aspect_ratio', message: 'With a first frame, the video takes the aspect ratio of the image.' });
    }
  }
  for (const [k, v] of Object.entries(req.providerParams)) if (v !== undefined) input[k] = v;
  return { input, warnings };
}

/** Replicate's failed-prediction wording: NSFW and safety refusals are content policy, not a broken job. */
export function classifyReplicateFailure(error: string): 'content_policy' | 'invalid_input' | 'server' {
  if (/nsfw|safety|sensitive|flagged|content policy|moderation/i.test(error)) return 'content_policy';
  if (/invalid|must be|not supported|too long|validation/i.test(error)) return 'invalid_input';
  return 'server';
}
