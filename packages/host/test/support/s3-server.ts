import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import S3rver from 's3rver';
import type { S3BlobStoreSettings } from '../../src/storage/s3-blob-store.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
const NODE = join(REPO_ROOT, 'node_modules/.bin/node');

export interface TestS3Server {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  readonly bucket: string;
  /** S3BlobStore settings for this server (path-style, its fixed credentials), with a key prefix. */
  settings(prefix?: string): S3BlobStoreSettings;
  /** The environment a `gengate serve` needs to use this server (BLOB_STORE=s3 ...). */
  env(prefix?: string): Record<string, string>;
  close(): Promise<void>;
}

const BUCKET = 'gengate-test';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function describeServer(port: number, close: () => Promise<void>): TestS3Server {
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket: BUCKET,
    settings: (prefix = '') => ({ bucket: BUCKET, prefix, region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS }),
    env: (prefix = '') => ({
      BLOB_STORE: 's3',
      S3_BUCKET: BUCKET,
      S3_PREFIX: prefix,
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    }),
    close,
  };
}

/** s3rver in this process, on a free loopback port, storing in a temporary directory, with one bucket. */
async function inProcess(directory: string): Promise<TestS3Server> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = await server.run();
  return describeServer(port, async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });
}

/** s3rver in a child process (so that its memory is not counted in this one's). */
async function childProcess(directory: string): Promise<TestS3Server> {
  const child = spawn(NODE, ['--import', 'tsx', join(import.meta.dirname, 's3-server-main.ts'), directory, BUCKET], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise<number>((res, rej) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\d+)/.exec(out);
      if (m?.[1]) res(Number(m[1]));
    });
    child.once('exit', (code) => rej(new Error(`s3rver exited early (${String(code)})`)));
  });
  return describeServer(port, async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
  });
}

/** An S3-protocol server for tests and scripts: the real AWS SDK talks to it over HTTP. */
export async function startS3Server(opts: { separateProcess?: boolean } = {}): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'gg-s3rver-'));
  return opts.separateProcess ? childProcess(directory) : inProcess(directory);
}
