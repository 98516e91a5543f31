/** The S3 result store's settings: a file of their own so that naming them loads no AWS SDK types (the SDK is optional). */
export interface S3BlobStoreSettings {
  readonly bucket: string;
  /** Prepended to every key (e.g. `gengate/results/`); '' = the bucket's root. */
  readonly prefix: string;
  readonly region: string;
  /** An S3-compatible endpoint (MinIO, R2, GCS interoperability...); null = AWS. */
  readonly endpoint: string | null;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), which MinIO and most self-hosted servers need. */
  readonly forcePathStyle: boolean;
  /** Static credentials; null = the SDK's default chain (environment, shared files, instance or task role). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
  /** Bytes per part of a multipart upload (at least 5 MiB; at most 4 parts are in memory at once). */
  readonly partSizeBytes?: number;
}
