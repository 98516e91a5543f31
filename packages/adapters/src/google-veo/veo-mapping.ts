import { UpstreamError, type JsonValue, type NormalizedVideoRequest } from '@gengate/core/adapter';

/** The options of `experimental_startVideo` a generic request maps to (the SDK turns them into the Gemini API body). */
export interface VeoStartOptions {
  readonly aspectRatio: `${number}:${number}`;
  /** The SDK maps `1280x720` to "720p" and `1920x1080` to "1080p". */
  readonly resolution: `${number}x${number}`;
  readonly duration: number;
  readonly providerOptions: { readonly google: Record<string, JsonValue> };
}

/**
 * Maps a generic video request to Veo's parameters: aspectRatio, resolution, durationSeconds; provider
 * parameters negativePrompt and personGeneration. Veo 3 renders 1080p only in 16:9: refused before submitting.
 * The first reference image goes in as the first frame (bytes: the Gemini API takes inline images, not URLs).
 */
export function veoStartOptions(req: NormalizedVideoRequest): VeoStartOptions {
  if (req.resolution === '1080p' && req.aspectRatio !== '16:9') {
    throw new UpstreamError('Veo renders 1080p in 16:9 only: choose 720p for 9:16.', { kind: 'invalid_input' });
  }
  const google: Record<string, JsonValue> = {};
  const p = req.providerParams;
  if (typeof p['negative_prompt'] === 'string') google['negativePrompt'] = p['negative_prompt'];
  if (typeof p['person_generation'] === 'string') google['personGeneration'] = p['person_generation'];
  return {
    aspectRatio: req.aspectRatio as `${number}:${number}`,
    resolution: req.resolution === '1080p' ? '1920x1080' : '1280x720',
    duration: req.duration,
    providerOptions: { google },
  };
}

/** Veo's failure wording: safety filters and blocked prompts are content policy. */
export function classifyVeoFailure(message: string): 'content_policy' | 'invalid_input' | 'server' {
  if (/raiMediaFiltered|safety|blocked|sensitive|responsible ai|policy/i.test(message)) return 'content_policy';
  if (/invalid|not supported|must be/i.test(message)) return 'invalid_input';
  return 'server';
}
