export interface StoredBlob {
  readonly data: Uint8Array;
  readonly mediaType: string;
}

/** The gateway's own storage for result files. */
export interface BlobStore {
  put(key: string, data: Uint8Array, mediaType: string): Promise<void>;
  get(key: string): Promise<StoredBlob | null>;
  /** Deletes every file of a task (keys `<taskId>/...`); nothing to delete is not an error. */
  deleteTask(taskId: string): Promise<void>;
}

/** Turns a blob key into the absolute URL clients download it from. */
export interface ResultUrlResolver {
  urlFor(key: string): string;
}
