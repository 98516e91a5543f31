import { fileTypeFromBuffer } from 'file-type';
import { UpstreamError } from '../errors/upstream-error.js';
import type { Modality } from '../model/modality.js';

/** Largest result file accepted per modality, in bytes (configurable; a larger one fails the task, uncharged). */
export const DEFAULT_MAX_RESULT_BYTES: Readonly<Record<Modality, number>> = {
  chat: 16 * 1024 * 1024,
  image: 64 * 1024 * 1024,
  video: 1024 * 1024 * 1024,
};

const ACCEPTED: Readonly<Record<Modality, (type: string) => boolean>> = {
  chat: (t) => t.startsWith('text/') || t === 'application/json',
  image: (t) => t.startsWith('image/'),
  video: (t) => t.startsWith('video/') || t === 'image/gif' || t === 'image/webp',
};

function unknownType(t: string | null | undefined): boolean {
  return !t || t === 'application/octet-stream' || t === 'binary/octet-stream';
}

/**
 * Streams a result through a size cap and a content-type check: the declared type must fit the modality
 * (an image model returns images, a video model video); an unknown type is sniffed from the first bytes.
 * Never holds more than one chunk (and the sniffing sample) in memory.
 */
export async function checkedResult(
  body: AsyncIterable<Uint8Array>,
  declaredType: string | null,
  modality: Modality,
  maxBytes: number,
): Promise<{ mediaType: string; body: AsyncIterable<Uint8Array> }> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let done = false;
  while (headBytes < 4_100 && !done) {
    const next = await iterator.next();
    if (next.done) done = true;
    else {
      head.push(next.value);
      headBytes += next.value.byteLength;
    }
  }
  let mediaType = declaredType?.split(';')[0]?.trim().toLowerCase() ?? null;
  if (unknownType(mediaType)) {
    const sample = new Uint8Array(headBytes);
    let at = 0;
    for (const c of head) {
      sample.set(c, at);
      at += c.byteLength;
    }
    mediaType = (await fileTypeFromBuffer(sample))?.mime ?? (modality === 'chat' ? 'text/plain' : null);
  }
  if (!mediaType || !ACCEPTED[modality](mediaType)) {
    throw new UpstreamError(`the result is ${mediaType ?? 'of an unknown type'}, not a ${modality} file`, { kind: 'bad_output' });
  }
  async function* capped(): AsyncIterable<Uint8Array> {
    let total = 0;
    const count = (c: Uint8Array) => {
      total += c.byteLength;
      if (total > maxBytes) throw new UpstreamError(`the result is larger than this gateway's limit of ${maxBytes} bytes for ${modality} files`, { kind: 'bad_output' });
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
