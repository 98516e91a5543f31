import { normalizeRunRequest, type AdapterCall, type InputFile, type ModelDescriptor, type RunRequest } from '@gengate/core/adapter';

/** A 1x1 PNG: what the kit's readInput returns for a reference image. */
const TINY_PNG = Uint8Array.from(
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64'),
);

/** What the kit hands adapters for reference inputs: a tiny PNG, or a few bytes labelled video/mp4. */
export async function kitReadInput(url: string): Promise<InputFile> {
  if (/\.(mp4|mov|webm)(\?|$)/i.test(url)) return { data: new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112]), mediaType: 'video/mp4' };
  return { data: TINY_PNG, mediaType: 'image/png' };
}

/** An AdapterCall the way the worker builds one. */
export function kitCall(model: ModelDescriptor, request: RunRequest, abortSignal: AbortSignal, webhookUrl: string | null = null): AdapterCall {
  return {
    taskId: crypto.randomUUID(),
    model,
    request: normalizeRunRequest(model, request),
    abortSignal,
    readInput: kitReadInput,
    webhookUrl,
  };
}
