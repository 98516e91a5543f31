import { pipeline } from 'node:stream/promises';
import { GatewayError, type BlobStore, type ByteRange } from '@gengate/core';
import type { Request, Response } from 'express';
import { contentDispositionFor, RESULT_FILE_CSP, servedContentType } from '../../storage/file-disposition.js';
import type { OutputSource } from '../../storage/output-source.js';

/** How result files reach clients: streamed through the gateway, or a 302 to a short-lived presigned URL. */
export interface FileDeliveryOptions {
  readonly mode: 'stream' | 'redirect';
  /** Lifetime of a presigned URL (capped by the result URL's own expiry when it has one). */
  readonly presignTtlSeconds: number;
}

export const STREAM_DELIVERY: FileDeliveryOptions = { mode: 'stream', presignTtlSeconds: 300 };

const notFound = () => new GatewayError('not_found', 'No such result file.');

/**
 * The one range this response serves, from the request's `Range` header (parsed by Express's
 * range-parser): null = the whole file (no header, a malformed one, a unit other than bytes, an `If-Range`
 * (we issue no validators, so it can never match), or several ranges, which are answered with the whole
 * file rather than multipart/byteranges). Throws 416 when no requested byte exists.
 */
export function requestedRange(req: Request, size: number): ByteRange | null {
  if (req.headers.range === undefined || req.headers['if-range'] !== undefined) return null;
  const parsed = req.range(size, { combine: true });
  if (parsed === undefined || parsed === -2) return null;
  if (parsed === -1) {
    throw new GatewayError('range_not_satisfiable', `The file has ${size} bytes; no byte of the requested range exists.`, {
      headers: { 'Content-Range': `bytes */${size}` },
    });
  }
  if (parsed.type !== 'bytes' || parsed.length !== 1) return null;
  const [r] = parsed;
  return r ? { start: r.start, end: r.end } : null;
}

/**
 * 302 to the store's presigned URL (S3); false when the store has none (then the file is streamed). The
 * URL makes the store answer with the type the task recorded and its disposition (active content as an
 * attachment), whatever metadata the object was stored with.
 */
export async function redirectToStore(
  res: Response,
  blobs: BlobStore,
  key: string,
  mediaType: string,
  delivery: FileDeliveryOptions,
  expiresAt: number | null,
  nowMs: number = Date.now(),
): Promise<boolean> {
  if (delivery.mode !== 'redirect' || !blobs.presignedUrl) return false;
  // A presigned URL never outlives the result URL it was reached through.
  const left = expiresAt === null ? delivery.presignTtlSeconds : Math.max(1, expiresAt - Math.floor(nowMs / 1000));
  const url = await blobs.presignedUrl(key, Math.min(delivery.presignTtlSeconds, left), {
    contentType: servedContentType(mediaType),
    contentDisposition: contentDispositionFor(mediaType, key),
  });
  res.status(302).setHeader('Cache-Control', 'no-store').setHeader('Location', url).end();
  return true;
}

/**
 * Streams the file (or the one range asked for) from the store (or an inline output's bytes: outputSource)
 * to the client: 200 or 206 with Content-Range, Accept-Ranges always, nothing held whole in memory. HEAD
 * answers the headers only.
 */
export async function streamFile(req: Request, res: Response, blobs: OutputSource, key: string, cacheControl: string): Promise<void> {
  const wantsRange = req.headers.range !== undefined;
  // Without a Range header one GET does it all; with one, the size is needed first to check the range.
  let range: ByteRange | null = null;
  let info = null;
  if (wantsRange || req.method === 'HEAD') {
    info = await blobs.stat(key);
    if (!info) throw notFound();
    range = requestedRange(req, info.size);
  }
  const opened = req.method === 'HEAD' ? null : await blobs.open(key, range ?? undefined);
  if (req.method !== 'HEAD' && !opened) throw notFound();
  const size = opened?.size ?? info?.size ?? 0;
  const mediaType = opened?.mediaType ?? info?.mediaType ?? 'application/octet-stream';
  // User-influenced content on the API's (and the dashboard's) origin: never sniffed, never allowed to run
  // (a sandboxing CSP), and anything but passive media downloaded rather than rendered (file-disposition.ts).
  res.setHeader('Content-Type', servedContentType(mediaType));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', RESULT_FILE_CSP);
  res.setHeader('Content-Disposition', contentDispositionFor(mediaType, key));
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Cache-Control', cacheControl);
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
  } else {
    res.status(200);
    res.setHeader('Content-Length', String(size));
  }
  if (!opened) {
    res.end();
    return;
  }
  try {
    await pipeline(opened.body, res);
  } catch (err) {
    // The client went away, or the store failed mid-file: the status line is sent, so the connection is
    // cut (the client sees a short body, never a complete-looking wrong one). pipeline released the store's stream.
    res.destroy();
    if (!res.writableFinished && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') req.log.warn({ err, key }, 'result file stream failed');
  }
}
