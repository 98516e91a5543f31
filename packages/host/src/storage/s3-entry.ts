/** @gengate/host/s3: the S3-compatible result store (loads the AWS SDK; import it only when results live on S3). */
export { S3BlobStore, type S3BlobStoreSettings } from './s3-blob-store.js';
