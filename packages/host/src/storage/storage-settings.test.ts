import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, maskSecrets, secretValues } from '../server/config.js';
import { createBlobStore } from './create-blob-store.js';
import { LocalBlobStore } from './local-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

const configError = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('result storage settings', () => {
  it('defaults to the local store, streamed', () => {
    const c = loadConfig({});
    expect(c.storage).toEqual({ store: 'local' });
    expect(c.fileDelivery).toEqual({ mode: 'stream', presignTtlSeconds: 300 });
  });

  it('reads the S3 settings', () => {
    const c = loadConfig({
      BLOB_STORE: 's3',
      S3_BUCKET: 'gengate-results',
      S3_PREFIX: 'prod/results',
      S3_REGION: 'auto',
      S3_ENDPOINT: 'https://acct.r2.example.com',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      FILES_DELIVERY: 'redirect',
      FILES_PRESIGN_TTL_SECONDS: '60',
    });
    expect(c.storage).toEqual({
      store: 's3',
      bucket: 'gengate-results',
      prefix: 'prod/results',
      region: 'auto',
      endpoint: 'https://acct.r2.example.com',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
    });
    expect(c.fileDelivery).toEqual({ mode: 'redirect', presignTtlSeconds: 60 });
    // No static keys: the SDK's default chain (environment, instance or task role).
    expect(loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'gengate-results' }).storage).toMatchObject({ credentials: null, endpoint: null, prefix: '' });
  });

  it('refuses incomplete or contradictory settings, one line each, never echoing the secret key', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const text = configError({ BLOB_STORE: 's3', S3_SECRET_ACCESS_KEY: secret, S3_PREFIX: '../up', FILES_PRESIGN_TTL_SECONDS: '0' });
    expect(text).toMatch(/^S3_BUCKET: is required when BLOB_STORE=s3$/m);
    expect(text).toMatch(/^S3_ACCESS_KEY_ID: /m);
    expect(text).toMatch(/^S3_PREFIX: /m);
    expect(text).toMatch(/^FILES_PRESIGN_TTL_SECONDS: /m);
    expect(text).not.toContain(secret);
    expect(configError({ FILES_DELIVERY: 'redirect' })).toMatch(/^FILES_DELIVERY: redirect needs BLOB_STORE=s3/m);
    expect(configError({ BLOB_STORE: 'gcs' })).toMatch(/^BLOB_STORE: /m);
  });

  it('masks the S3 secret key in every output', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const secrets = secretValues({ S3_SECRET_ACCESS_KEY: secret });
    expect(secrets).toContain(secret);
    expect(maskSecrets(`signing with ${secret}`, secrets)).toBe('signing with [redacted]');
  });

  it('creates the store the configuration names', async () => {
    expect(await createBlobStore(loadConfig({}, '/srv/app'))).toBeInstanceOf(LocalBlobStore);
    const s3 = await createBlobStore(loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'gengate-results', S3_ENDPOINT: 'http://127.0.0.1:9' }));
    expect(s3).toBeInstanceOf(S3BlobStore);
    (s3 as S3BlobStore).close();
  });
});
