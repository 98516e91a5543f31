import { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobBody, BlobInfo, BlobStore, ByteRange, OpenedBlob, PresignedResponseHeaders, StoredBlob } from '@gengate/core';
import { mediaTypeForExtension } from '@gengate/core/adapter';
import { assertTaskId, BLOB_KEY, blobKeyExtension } from './blob-keys.js';
import { contentDispositionFor } from './file-disposition.js';
import type { S3BlobStoreSettings } from './s3-settings.js';

export type { S3BlobStoreSettings };

const MIN_PART = 5 * 1024 * 1024;

function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.$metadata.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound';
}

/** `Content-Range: bytes a-b/total`, or null. */
function parseContentRange(contentRange: string | undefined): { start: number; end: number; total: number } | null {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange ?? '');
  return m ? { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) } : null;
}

/** Bytes [start, end] of a whole-object stream; the source is destroyed once they are read. */
function slice(source: Readable, start: number, end: number): AsyncIterable<Uint8Array> {
  return (async function* () {
    let at = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        const from = Math.max(0, start - at);
        const to = Math.min(chunk.byteLength, end - at + 1);
        at += chunk.byteLength;
        if (to > from) yield chunk.subarray(from, to);
        if (at > end) return;
      }
    } finally {
      source.destroy();
    }
  })();
}

/** The body as a Readable that counts its bytes and remembers why its source failed. */
function counted(body: BlobBody): { stream: Readable; bytes: () => number; sourceError: () => unknown } {
  let bytes = 0;
  let failure: unknown = null;
  if (body instanceof Uint8Array) return { stream: Readable.from([body]), bytes: () => body.byteLength, sourceError: () => null };
  const stream = Readable.from(
    (async function* () {
      try {
        for await (const chunk of body) {
          bytes += chunk.byteLength;
          yield chunk;
        }
      } catch (err) {
        failure = err;
        throw err;
      }
    })(),
  );
  return { stream, bytes: () => bytes, sourceError: () => failure };
}

/**
 * Result files in an S3-compatible bucket, on the official AWS SDK v3: streamed multipart uploads
 * (lib-storage `Upload`, aborted on a failing stream so nothing is stored), ranged streaming reads
 * (`GetObject` with `Range`), and presigned GET URLs for redirect delivery.
 */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly prefix: string;

  constructor(private readonly settings: S3BlobStoreSettings) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.credentials ? { credentials: { ...settings.credentials } } : {}),
      // Checksums only where S3 requires them: several S3-compatible services reject the newer default ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.prefix = settings.prefix === '' || settings.prefix.endsWith('/') ? settings.prefix : `${settings.prefix}/`;
  }

  private objectKey(key: string): string {
    blobKeyExtension(key);
    return `${this.prefix}${key}`;
  }

  async put(key: string, body: BlobBody, mediaType: string): Promise<{ bytes: number }> {
    const Key = this.objectKey(key);
    const source = counted(body);
    const upload = new Upload({
      client: this.client,
      // Safe metadata: whoever reads the object straight from the bucket gets the same disposition the
      // gateway serves it with (active content such as SVG or HTML as an attachment).
      params: {
        Bucket: this.settings.bucket,
        Key,
        Body: source.stream,
        ContentType: mediaType,
        ContentDisposition: contentDispositionFor(mediaType, key),
      },
      partSize: Math.max(MIN_PART, this.settings.partSizeBytes ?? MIN_PART),
      queueSize: 4,
      // A failed upload aborts its multipart upload: no part is left behind and no object appears.
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // The source's own error says what went wrong (Upload may report the abort's failure instead).
      throw source.sourceError() ?? err;
    }
    return { bytes: source.bytes() };
  }

  async get(key: string): Promise<StoredBlob | null> {
    const opened = await this.open(key);
    if (!opened) return null;
    const chunks: Uint8Array[] = [];
    for await (const c of opened.body) chunks.push(c);
    return { data: new Uint8Array(Buffer.concat(chunks)), mediaType: opened.mediaType };
  }

  async stat(key: string): Promise<BlobInfo | null> {
    if (!BLOB_KEY.test(key)) return null;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      return { size: head.ContentLength ?? 0, mediaType: head.ContentType ?? mediaTypeForExtension(blobKeyExtension(key)) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async open(key: string, range?: ByteRange): Promise<OpenedBlob | null> {
    if (!BLOB_KEY.test(key)) return null;
    let out: GetObjectCommandOutput;
    try {
      out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
    // In Node the body is the HTTP response itself (a Readable): nothing is buffered here.
    const body = out.Body;
    if (!(body instanceof Readable)) throw new Error('S3 GetObject returned no stream body');
    const mediaType = out.ContentType ?? mediaTypeForExtension(blobKeyExtension(key));
    if (!range) return { body, size: out.ContentLength ?? 0, mediaType, range: null };
    const served = parseContentRange(out.ContentRange);
    if (served && served.start === range.start && served.end === range.end) return { body, size: served.total, mediaType, range };
    // Some S3-compatible servers answer with more than asked (s3rver reads `bytes=0-0` as `bytes=0-`), or the
    // whole object: cut the stream to the range here.
    if (served && served.start <= range.start && served.end >= range.end) {
      return { body: slice(body, range.start - served.start, range.end - served.start), size: served.total, mediaType, range };
    }
    if (!served && out.ContentLength !== undefined) return { body: slice(body, range.start, range.end), size: out.ContentLength, mediaType, range };
    body.destroy();
    throw new Error(`S3 GetObject answered bytes=${range.start}-${range.end} with Content-Range ${out.ContentRange ?? 'missing'}`);
  }

  async presignedUrl(key: string, ttlSeconds: number, response?: PresignedResponseHeaders): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.settings.bucket,
      Key: this.objectKey(key),
      ...(response ? { ResponseContentType: response.contentType, ResponseContentDisposition: response.contentDisposition } : {}),
    });
    return getSignedUrl(this.client, command, { expiresIn: ttlSeconds });
  }

  /** Lists the task's objects page by page (1,000 a page) and deletes each page in one request. */
  async deleteTask(taskId: string): Promise<void> {
    assertTaskId(taskId);
    const Prefix = `${this.prefix}${taskId}/`;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix, ...(ContinuationToken ? { ContinuationToken } : {}) }));
      const Objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (Objects.length > 0) {
        const res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects, Quiet: true } }));
        const failed = res.Errors ?? [];
        if (failed.length > 0) throw new Error(`S3 could not delete ${failed.length} object(s) of task ${taskId}: ${failed[0]?.Code ?? 'unknown error'}`);
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  /** Deletes the named objects, up to 1,000 a request (S3's limit); missing ones are not an error. */
  async delete(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1_000) {
      const Objects = keys.slice(i, i + 1_000).map((key) => ({ Key: this.objectKey(key) }));
      const res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects, Quiet: true } }));
      const failed = res.Errors ?? [];
      if (failed.length > 0) throw new Error(`S3 could not delete ${failed.length} object(s): ${failed[0]?.Code ?? 'unknown error'}`);
    }
  }

  /** Releases the client's connections. */
  close(): void {
    this.client.destroy();
  }
}
