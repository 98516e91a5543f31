/** A file's content: whole, or as a stream of chunks (never held whole in memory). */
export type BlobBody = Uint8Array | AsyncIterable<Uint8Array>;

export interface StoredBlob {
  readonly data: Uint8Array;
  readonly mediaType: string;
}

/** The gateway's own storage for result files. Keys are `<task_id>/<file name>`. */
export interface BlobStore {
  /** Stores a file, streaming it when given chunks; resolves with its size. A failing stream stores nothing. */
  put(key: string, body: BlobBody, mediaType: string): Promise<{ bytes: number }>;
  get(key: string): Promise<StoredBlob | null>;
  /** Deletes every file of a task (keys `<taskId>/...`); nothing to delete is not an error. */
  deleteTask(taskId: string): Promise<void>;
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
