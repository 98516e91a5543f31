import { join } from 'node:path';
import type { BlobStore } from '@gengate/core';
import { importOptional } from '../optional-dependency.js';
import { LocalBlobStore } from './local-blob-store.js';
import type { StorageSettings } from './storage-settings.js';

/**
 * The result store the configuration names: BLOB_STORE=local (`<data dir>/files`, the default) or s3.
 * The AWS SDK (an optional peer dependency) is loaded only when the S3 store is chosen.
 */
export async function createBlobStore(config: { readonly storage: StorageSettings; readonly dataDir: string }): Promise<BlobStore> {
  const s = config.storage;
  if (s.store === 's3') {
    const { S3BlobStore } = await importOptional('@aws-sdk/client-s3', () => import('./s3-blob-store.js'));
    return new S3BlobStore(s);
  }
  return new LocalBlobStore(join(config.dataDir, 'files'));
}
