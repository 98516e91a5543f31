/** @gengate/host/s3: the S3-compatible result store (loads the AWS SDK; import it only when results live on S3). */
// First: refuses an older Node.js with one clear line before any dependency can crash at import.
import '../node-version-guard.js';
export { S3BlobStore, type S3BlobStoreSettings } from './s3-blob-store.js';
