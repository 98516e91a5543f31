import { join } from 'node:path';
import type { BlobStore } from '@gengate/core';
import type { GengateConfig } from '../server/config.js';
import { LocalBlobStore } from './local-blob-store.js';

/**
 * The result store the configuration names: BLOB_STORE=local (`<data dir>/files`, the default) or s3.
 * The AWS SDK is loaded only when the S3 store is chosen.
 */
export async function createBlobStore(config: Pick<GengateConfig, 'storage' | 'dataDir'>): Promise<BlobStore> {
  const s = config.storage;
  if (s.store === 's3') {
    const { S3BlobStore } = await import('./s3-blob-store.js');
    return new S3BlobStore(s);
  }
  return new LocalBlobStore(join(config.dataDir, 'files'));
}
