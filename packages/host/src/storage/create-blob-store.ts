import { join } from 'node:path';
import type { BlobStore } from '@gengate/core';
import type { GengateConfig } from '../server/config.js';
import { LocalBlobStore } from './local-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

/** The result store the configuration names: BLOB_STORE=local (`<data dir>/files`, the default) or s3. */
export function createBlobStore(config: Pick<GengateConfig, 'storage' | 'dataDir'>): BlobStore {
  const s = config.storage;
  if (s.store === 's3') return new S3BlobStore(s);
  return new LocalBlobStore(join(config.dataDir, 'files'));
}
