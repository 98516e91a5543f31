import { z } from 'zod';

export const MODALITIES = ['video', 'image', 'chat'] as const;
export const modalitySchema = z.enum(MODALITIES);
export type Modality = z.infer<typeof modalitySchema>;

export const ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
export const aspectRatioSchema = z.enum(ASPECT_RATIOS);
export type AspectRatio = z.infer<typeof aspectRatioSchema>;

export const VIDEO_RESOLUTIONS = ['720p', '1080p'] as const;
export const videoResolutionSchema = z.enum(VIDEO_RESOLUTIONS);
export type VideoResolution = z.infer<typeof videoResolutionSchema>;
