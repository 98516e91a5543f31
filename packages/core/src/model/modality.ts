import { z } from 'zod';

export const MODALITIES = ['video', 'image', 'chat'] as const;
export const modalitySchema = z.enum(MODALITIES);
export type Modality = z.infer<typeof modalitySchema>;

/**
 * Aspect ratios are open values of the form `W:H` (small integers, e.g. `16:9`, `21:9`, `3:2`); each model
 * lists the ones it accepts in its capabilities. The interface document names these five.
 */
export const COMMON_ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
export type AspectRatio = string;
export const ASPECT_RATIO_PATTERN = /^[1-9]\d?:[1-9]\d?$/;
export const aspectRatioSchema = z.string().regex(ASPECT_RATIO_PATTERN, 'must be W:H with small integers, e.g. 16:9');

/** Video resolutions are open values such as `480p`, `720p`, `768p`, `1080p` or `4k`; each model lists its own. */
export type VideoResolution = string;
export const RESOLUTION_PATTERN = /^(\d{3,4}p|[1-8]k)$/;
export const videoResolutionSchema = z.string().regex(RESOLUTION_PATTERN, 'must be a resolution such as 720p, 1080p or 4k');

/** Width divided by height of a `W:H` aspect ratio. */
export function ratioValue(ratio: AspectRatio): number {
  const [w, h] = ratio.split(':').map(Number);
  if (!w || !h) throw new Error(`not an aspect ratio: ${ratio}`);
  return w / h;
}
