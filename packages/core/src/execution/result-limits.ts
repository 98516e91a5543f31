import { fileTypeFromBuffer } from 'file-type';
import { UpstreamError } from '../errors/upstream-error.js';
import type { Modality } from '../model/modality.js';
import type { BlobBody } from '../ports/blob-store.js';

/** Largest result file accepted per modality, in bytes (configurable; a larger one fails the task, uncharged). */
export const DEFAULT_MAX_RESULT_BYTES: Readonly<Record<Modality, number>> = {
  chat: 16 * 1024 * 1024,
  image: 64 * 1024 * 1024,
  video: 1024 * 1024 * 1024,
};

/** Results up to this size are kept with their task, not in the blob store (ExecuteTaskOptions.inlineResultMaxBytes). */
export const DEFAULT_INLINE_RESULT_MAX_BYTES = 4096;

const ACCEPTED: Readonly<Record<Modality, (type: string) => boolean>> = {
  chat: (t) => t.startsWith('text/') || t === 'application/json',
  image: (t) => t.startsWith('image/'),
  video: (t) => t.startsWith('video/') || t === 'image/gif' || t === 'image/webp',
};

function unknownType(t: string | null | undefined): boolean {
  return !t || t === 'application/octet-stream' || t === 'binary/octet-stream';
}

/** The result's media type: the declared one when it fits, else sniffed from the first bytes (`sample`); refused when it is not one of the modality's. */
async function acceptedType(declaredType: string | null, sample: () => Uint8Array, modality: Modality): Promise<string> {
  let mediaType = declaredType?.split(';')[0]?.trim().toLowerCase() ?? null;
  if (unknownType(mediaType)) mediaType = (await fileTypeFromBuffer(sample()))?.mime ?? (modality === 'chat' ? 'text/plain' : null);
  if (!mediaType || !ACCEPTED[modality](mediaType)) {
    throw new UpstreamError(`the result is ${mediaType ?? 'of an unknown type'}, not a ${modality} file`, { kind: 'bad_output' });
  }
  return mediaType;
}

function tooLarge(modality: Modality, maxBytes: number): UpstreamError {
  return new UpstreamError(`the result is larger than this gateway's limit of ${maxBytes} bytes for ${modality} files`, { kind: 'bad_output' });
}

/** The bytes of a stream read before its type is checked (file-type's sample size). */
const SNIFF_BYTES = 4_100;

/**
 * Checks a result's content type and size: the declared type must fit the modality (an image model returns
 * images, a video model video); an unknown type is sniffed from the first bytes. A whole body (an adapter's
 * bytes) is checked at once and stays whole, so the blob store can write it in one call; a stream goes
 * through a size cap (its error surfaces while the store reads it) and never holds more than one chunk
 * (and the sniffing sample) in memory. Both shapes fail with the same errors, type first, then size.
 */
export async function checkedResult(body: Uint8Array, declaredType: string | null, modality: Modality, maxBytes: number): Promise<{ mediaType: string; body: Uint8Array }>;
export async function checkedResult(body: AsyncIterable<Uint8Array>, declaredType: string | null, modality: Modality, maxBytes: number): Promise<{ mediaType: string; body: AsyncIterable<Uint8Array> }>;
export async function checkedResult(body: BlobBody, declaredType: string | null, modality: Modality, maxBytes: number): Promise<{ mediaType: string; body: BlobBody }>;
export async function checkedResult(body: BlobBody, declaredType: string | null, modality: Modality, maxBytes: number): Promise<{ mediaType: string; body: BlobBody }> {
  if (body instanceof Uint8Array) {
    const mediaType = await acceptedType(declaredType, () => body, modality);
    if (body.byteLength > maxBytes) throw tooLarge(modality, maxBytes);
    return { mediaType, body };
  }
  const iterator = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let done = false;
  while (headBytes < SNIFF_BYTES && !done) {
    const next = await iterator.next();
    if (next.done) done = true;
    else {
      head.push(next.value);
      headBytes += next.value.byteLength;
    }
  }
  const mediaType = await acceptedType(
    declaredType,
    () => {
      const sample = new Uint8Array(headBytes);
      let at = 0;
      for (const c of head) {
        sample.set(c, at);
        at += c.byteLength;
      }
      return sample;
    },
    modality,
  );
  async function* capped(): AsyncIterable<Uint8Array> {
    let total = 0;
    const count = (c: Uint8Array) => {
      total += c.byteLength;
      if (total > maxBytes) throw tooLarge(modality, maxBytes);
      return c;
    };
    for (const c of head) yield count(c);
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield count(next.value);
    }
  }
  return { mediaType, body: capped() };
}
