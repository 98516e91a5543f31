import { UpstreamError, type JsonValue, type NormalizedVideoRequest, type TaskWarning } from '@gengate/core/adapter';
import type { RunwayModel } from './runway-models.js';

/** Runway names output sizes as pixel ratios: the generic aspect ratio and resolution each stands for. */
const RATIOS_720P: Readonly<Record<string, string>> = {
  '16:9': '1280:720',
  '9:16': '720:1280',
  '4:3': '1104:832',
  '3:4': '832:1104',
  '1:1': '960:960',
  '21:9': '1584:672',
};
const RATIOS_1080P: Readonly<Record<string, string>> = { '16:9': '1920:1080', '9:16': '1080:1920' };

export interface RunwayTaskRequest {
  readonly path: '/v1/image_to_video' | '/v1/text_to_video';
  readonly body: Readonly<Record<string, JsonValue>>;
  readonly warnings: readonly TaskWarning[];
}

/**
 * Maps a generic video request to Runway's documented body: the first reference image as `promptImage` on
 * image_to_video (Runway takes HTTPS URLs), otherwise text_to_video; aspect ratio and resolution as Runway's
 * pixel `ratio`; `duration` in seconds; `seed` and `contentModeration.publicFigureThreshold` from provider parameters.
 */
export function runwayTaskRequest(model: RunwayModel, req: NormalizedVideoRequest): RunwayTaskRequest {
  const warnings: TaskWarning[] = [];
  const image = req.imageUrls[0] ?? null;
  if (!image && !model.endpoints.text) {
    throw new UpstreamError(`${model.runwayModel} on Runway is image-to-video only: give a first frame in video_params.image_urls.`, { kind: 'invalid_input' });
  }
  let ratio = (req.resolution === '1080p' ? RATIOS_1080P : RATIOS_720P)[req.aspectRatio];
  if (req.resolution === '1080p' && image) {
    // image_to_video renders 720p ratios only
    ratio = RATIOS_720P[req.aspectRatio];
    warnings.push({ param: 'video_params.resolution', message: `${model.runwayModel} renders image-to-video at 720p on Runway; 1080p applies to text-to-video.` });
  }
  if (!ratio) throw new UpstreamError(`Runway has no ${req.resolution} ratio for aspect ratio ${req.aspectRatio}.`, { kind: 'invalid_input' });
  const body: Record<string, JsonValue> = { model: model.runwayModel, ratio, duration: req.duration };
  if (req.prompt) body['promptText'] = req.prompt;
  if (image) body['promptImage'] = image;
  const p = req.providerParams;
  if (typeof p['seed'] === 'number') body['seed'] = p['seed'];
  if (typeof p['public_figure_threshold'] === 'string') body['contentModeration'] = { publicFigureThreshold: p['public_figure_threshold'] };
  return { path: image ? '/v1/image_to_video' : '/v1/text_to_video', body, warnings };
}

/** Runway's dot-separated failure codes: SAFETY.* is content policy, ASSET.* and INPUT.* invalid input, the rest a server failure. */
export function classifyRunwayFailure(code: string | null | undefined): 'content_policy' | 'invalid_input' | 'server' {
  const c = code ?? '';
  if (c.startsWith('SAFETY')) return 'content_policy';
  if (c.startsWith('ASSET') || c.startsWith('INPUT')) return 'invalid_input';
  return 'server';
}
