export interface StoredBlob {
  readonly data: Uint8Array;
  readonly mediaType: string;
}

/** The gateway's own storage for result files. Keys are `<task_id>/<file name>`. */
export interface BlobStore {
  put(key: string, data: Uint8Array, mediaType: string): Promise<void>;
  get(key: string): Promise<StoredBlob | null>;
  /** Deletes every blob whose key starts with `prefix` (e.g. `<task_id>/`); no error when there is none. */
  deletePrefix(prefix: string): Promise<void>;
}

/** Turns a blob key into the absolute URL clients download it from. */
export interface ResultUrlResolver {
  urlFor(key: string): string;
}
