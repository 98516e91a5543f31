/** A file's content: whole, or as a stream of chunks (never held whole in memory). */
export type BlobBody = Uint8Array | AsyncIterable<Uint8Array>;

export interface StoredBlob {
  readonly data: Uint8Array;
  readonly mediaType: string;
}

/** A byte range of a file, both ends inclusive (as in HTTP `Range: bytes=start-end`), already checked against its size. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** What `stat` tells about a stored file without reading it. */
export interface BlobInfo {
  /** The whole file's size in bytes. */
  readonly size: number;
  readonly mediaType: string;
}

/**
 * A stored file opened for reading: its bytes as a stream (the whole file, or `range` of it). Iterating
 * to the end, or stopping early (break / `return()`, as `stream.pipeline` does on a client that went
 * away), releases what the store holds (a file descriptor, an HTTP connection).
 */
export interface OpenedBlob extends BlobInfo {
  readonly body: AsyncIterable<Uint8Array>;
  /** The part of the file `body` holds; null = all of it. */
  readonly range: ByteRange | null;
}

/** Headers a presigned URL makes the store answer with. */
export interface PresignedResponseHeaders {
  readonly contentType: string;
  readonly contentDisposition: string;
}

/**
 * The gateway's own storage for result files. Keys are `<task_id>/<file name>`; each attempt at storing a
 * task's results writes names of its own (`output-<n>-<attempt>.<ext>`), so attempts never share a file.
 */
export interface BlobStore {
  /** Stores a file, streaming it when given chunks; resolves with its size. A failing stream stores nothing. */
  put(key: string, body: BlobBody, mediaType: string): Promise<{ bytes: number }>;
  /** Reads a whole file into memory: for small files and tests; serving uses `open`. */
  get(key: string): Promise<StoredBlob | null>;
  /** Size and media type of a file; null when there is no such file. */
  stat(key: string): Promise<BlobInfo | null>;
  /** Opens a file (or one range of it, which the caller has checked against `stat`) as a stream; null when there is no such file. */
  open(key: string, range?: ByteRange): Promise<OpenedBlob | null>;
  /**
   * A URL the file can be downloaded from directly, valid for `ttlSeconds` (stores that have one, e.g. S3:
   * a presigned GET, which honours `Range` itself). Not checked for existence. `response` sets the
   * headers the store answers that URL with (S3's `response-content-type` and
   * `response-content-disposition` overrides), whatever the object's stored metadata says.
   */
  presignedUrl?(key: string, ttlSeconds: number, response?: PresignedResponseHeaders): Promise<string>;
  /** Deletes every file of a task (keys `<taskId>/...`); nothing to delete is not an error. */
  deleteTask(taskId: string): Promise<void>;
  /** Deletes these files and no other (what one attempt stored); a file that is not there is not an error. */
  delete(keys: readonly string[]): Promise<void>;
}

/** Turns a blob key into the absolute URL clients download it from. */
export interface ResultUrlResolver {
  urlFor(key: string): string;
}

/** Reads a whole BlobBody (for small files and stores that need the bytes). */
export async function blobBytes(body: BlobBody): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const c of body) {
    chunks.push(c);
    total += c.byteLength;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
