import { z } from 'zod';
import type { S3BlobStoreSettings } from './s3-settings.js';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Result storage settings (docs/configuration.md, "Result storage"), merged into the server's environment schema. */
export const STORAGE_ENV = {
  BLOB_STORE: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3-63 lowercase letters, digits, dots and hyphens)')
    .optional(),
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9!_.*'()/-]{0,512}$/, 'must be a key prefix of safe characters (letters, digits and !_.*\'()/-)')
    .refine((v) => !v.startsWith('/') && !v.includes('//') && !v.split('/').includes('..'), 'must not start with /, contain // or ..')
    .default(''),
  S3_REGION: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be a region name such as us-east-1 (or auto)').default('us-east-1'),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  FILES_DELIVERY: z.enum(['stream', 'redirect']).default('stream'),
  FILES_PRESIGN_TTL_SECONDS: z
    .string()
    .regex(/^\d+$/, 'must be an integer 1..604800')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 604_800, 'must be an integer 1..604800')
    .default(300),
};

type Parsed = z.output<z.ZodObject<typeof STORAGE_ENV>>;

export type StorageSettings =
  | { readonly store: 'local' }
  | ({ readonly store: 's3' } & S3BlobStoreSettings);

/** How result files reach clients: streamed through the gateway, or a 302 to a short-lived presigned URL (S3 only). */
export interface FileDelivery {
  readonly mode: 'stream' | 'redirect';
  readonly presignTtlSeconds: number;
}

/** Cross-field checks, for the environment schema's superRefine. */
export function storageIssues(c: Parsed): { path: keyof typeof STORAGE_ENV; message: string }[] {
  const issues: { path: keyof typeof STORAGE_ENV; message: string }[] = [];
  if (c.BLOB_STORE === 's3' && !c.S3_BUCKET) issues.push({ path: 'S3_BUCKET', message: 'is required when BLOB_STORE=s3' });
  if (Boolean(c.S3_ACCESS_KEY_ID) !== Boolean(c.S3_SECRET_ACCESS_KEY)) {
    issues.push({ path: c.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID', message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together' });
  }
  if (c.FILES_DELIVERY === 'redirect' && c.BLOB_STORE !== 's3') issues.push({ path: 'FILES_DELIVERY', message: 'redirect needs BLOB_STORE=s3 (the local store has no presigned URLs)' });
  return issues;
}

export function storageSettings(c: Parsed): StorageSettings {
  if (c.BLOB_STORE === 'local') return { store: 'local' };
  return {
    store: 's3',
    bucket: c.S3_BUCKET ?? '',
    prefix: c.S3_PREFIX,
    region: c.S3_REGION,
    endpoint: c.S3_ENDPOINT ?? null,
    forcePathStyle: c.S3_FORCE_PATH_STYLE,
    credentials: c.S3_ACCESS_KEY_ID && c.S3_SECRET_ACCESS_KEY ? { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY } : null,
  };
}

export function fileDelivery(c: Parsed): FileDelivery {
  return { mode: c.FILES_DELIVERY, presignTtlSeconds: c.FILES_PRESIGN_TTL_SECONDS };
}
